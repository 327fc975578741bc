import type { Hono, MiddlewareHandler } from "hono";
import type { Coverage } from "../db/coverage";
import type { OperationExample } from "../http/openapi";
import type { AppEnv } from "../types";

/** A guide served as Markdown under /docs/ (built from docs/) and listed in /llms.txt: file, title, a short note. */
export type Guide = readonly [file: string, title: string, note: string];

/** A dataset shipped inside the Worker (no `datasets` row): `GET /status/data` lists it, loaded when the Worker is. */
export interface BundledDataset {
  name: string;
  version: string;
  records: number;
  coverage: Coverage;
}

/**
 * Its sandbox test values as the intros of the OpenAPI document and /llms.txt name them (Markdown): `brief` in the
 * document's one sentence, `full` (or `brief`) in /llms.txt, which agents read to try every value.
 */
export interface SandboxValues {
  brief: string;
  full?: string;
}

/**
 * What the account-wide surfaces show of a product besides its lookups: the OpenAPI tag's description, its guides,
 * the operator routes that load its datasets, the datasets it ships, its examples and what the intros say of it.
 * Declared in the product's folder and handed to the registry with its lookups, so the OpenAPI document, /llms.txt,
 * the tool protocol's instructions, the dashboard's try-it, `GET /status/data` and the operator API list a product
 * the day it is registered, with no line of their own.
 */
export interface ProductSurface {
  /** The OpenAPI tag's description (the tag's name is the lookups' `tag`). */
  tagDescription: string;
  /**
   * What it verifies, as a plural noun phrase ("email addresses"): the intros of the OpenAPI document, /llms.txt and
   * the tool protocol list these in registry order, so a product they do not name is one without it.
   */
  subject?: string;
  /** Its sandbox test values, named in the intros beside the sandbox key. */
  sandbox?: SandboxValues;
  /**
   * Its OpenAPI examples (usually its examples.json), keyed `METHOD /path` under /api/v1 as its lookups declare
   * paths: answers recorded from the app, shown on the operations and checked against the app by
   * test/http/openapi-examples.test.ts. The first with a body of its single POST lookup starts its try-it form.
   */
  examples?: Readonly<Record<string, readonly OperationExample[]>>;
  /** The try-it form's starting body when no example has one (a product without test values to record). */
  tryBody?: unknown;
  /** Its guides, listed in /llms.txt in registry order between the account-wide ones. */
  guides?: readonly Guide[];
  /**
   * The operator routes loading its datasets, mounted under /admin/v1 behind the operator token. They belong to the
   * product because only it knows its rows' shapes and stores (docs/architecture.md, "A product's surface").
   */
  admin?: Hono<AppEnv>;
  /**
   * Account routes of its own beside its lookups (IP's allow and deny lists), mounted under /api/v1 before the
   * lookups' `/{value}` catch-all; `keyed` is the secret-key check for the product's scope (auth reads the registry, so
   * it is handed in rather than imported).
   */
  api?: (keyed: MiddlewareHandler<AppEnv>) => Hono<AppEnv>;
  /** Datasets bundled with the Worker, listed by `GET /status/data` beside the installed ones. */
  bundled?: readonly BundledDataset[];
}
