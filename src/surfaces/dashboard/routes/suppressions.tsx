import { Hono } from "hono";
import { PER_PAGE } from "../../../db/listing";
import type { Product } from "../../../engines/product";
import type { DashContext, DashEnv } from "../context";
import { SuppressionsPage, type SuppressionsPageProps } from "../pages/suppressions";
import { addFromForm, listedProducts, pageOf, removeEntry } from "../suppressions";

/** What a render shows besides the list: the page of it (1 unless told), a notice or a form's outcome, the status. */
type Shown = Pick<SuppressionsPageProps, "notice" | "added" | "errors"> & { page?: number; status?: 200 | 404 | 422 };

const render = async (c: DashContext, product: Product, { page = 1, status = 200, ...shown }: Shown = {}) => {
  const { rows, total } = await pageOf(c.env, c.var.session.accountId, product, page);
  return c.html(
    <SuppressionsPage
      session={c.var.session}
      products={listedProducts().map((p) => p.name)}
      product={product.name}
      valueField={product.suppressions!.valueField}
      rows={rows}
      page={page}
      total={total}
      perPage={PER_PAGE}
      {...shown}
    />,
    status,
  );
};

const named = (name: string | undefined) => listedProducts().find((p) => p.name === name);
const unknown = (c: DashContext) => render(c, listedProducts()[0]!, { notice: "No such list.", status: 404 });

/** Suppression lists of the account, per product. Owners and members alike (any key with the scope may, by API). */
export const suppressionRoutes = new Hono<DashEnv>()
  .get("/suppressions", (c) => {
    const product = c.req.query("product") === undefined ? listedProducts()[0] : named(c.req.query("product"));
    if (!product) return unknown(c);
    const page = Number(c.req.query("page") ?? "1");
    return render(c, product, { page: Number.isSafeInteger(page) && page >= 1 ? page : 1 });
  })
  .post("/suppressions/:product", async (c) => {
    const product = named(c.req.param("product"));
    if (!product) return unknown(c);
    const form = await c.req.parseBody();
    const text = (name: string) => (typeof form[name] === "string" ? (form[name] as string).trim() : "");
    const result = await addFromForm(c.env, c.var.session.accountId, product, {
      text: text("values"),
      reason: text("reason"),
    });
    return "errors" in result
      ? render(c, product, { errors: result.errors, status: 422 })
      : render(c, product, { added: result });
  })
  .post("/suppressions/:product/:id/delete", async (c) => {
    const product = named(c.req.param("product"));
    if (!product) return unknown(c);
    const row = await removeEntry(c.env, c.var.session.accountId, product, Number(c.req.param("id")));
    return row
      ? render(c, product, { notice: `${row.key} is no longer suppressed.` })
      : render(c, product, { notice: "No such entry in this account's list.", status: 404 });
  });
