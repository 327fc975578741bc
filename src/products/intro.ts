import type { OperationExample } from "../http/openapi";
import { registeredProducts, type ServedProduct } from "./registry";

/**
 * What the intros of the OpenAPI document, /llms.txt and the tool protocol say of the products, read from each
 * product's surface in registry order: the prose around it stays where it is written, the products' names, test
 * values and examples come from their folders, so a product registered later is named without an edit there.
 */

/** "a, b and c". */
const spelled = (items: readonly string[]): string =>
  items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;

/** What the registered products verify: "email addresses, phone numbers, ... and cross-checks between them". */
export const productSubjects = (): string => spelled(registeredProducts().flatMap((p) => p.surface.subject ?? []));

/** The registered products' sandbox test values, comma-separated: `brief` for the document, `full` for /llms.txt. */
export const sandboxValues = (form: "brief" | "full"): string =>
  registeredProducts()
    .flatMap(({ surface: { sandbox } }) =>
      sandbox ? [form === "full" ? (sandbox.full ?? sandbox.brief) : sandbox.brief] : [],
    )
    .join(", ");

const NUMBERS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

/** A count as the prose spells it ("four"), in digits past ten. */
export const countWord = (n: number): string => NUMBERS[n] ?? String(n);

/** Every registered product's examples, keyed as the document keys operations: `METHOD /api/v1/path`. */
export const productExamples = (): Record<string, readonly OperationExample[]> =>
  Object.fromEntries(
    registeredProducts().flatMap((p) =>
      Object.entries(p.surface.examples ?? {}).map(([operation, list]) => {
        const [method, path] = operation.split(" ");
        return [`${method} /api/v1${path}`, list];
      }),
    ),
  );

/** The body a product's `POST {path}` starts with: its first example's that has one, else its surface's `tryBody`. */
export const exampleBody = (product: ServedProduct, path: string): unknown =>
  product.surface.examples?.[`POST ${path}`]?.find((e) => e.body !== undefined)?.body ?? product.surface.tryBody;
