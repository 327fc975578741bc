import type { Hono } from "hono";
import type { Coverage } from "../db/coverage";
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
 * What the account-wide surfaces show of a product besides its lookups: the OpenAPI tag's description, its guides,
 * the operator routes that load its datasets, and the datasets it ships. Declared in the product's folder and handed
 * to the registry with its lookups, so the OpenAPI document, /llms.txt, `GET /status/data` and the operator API list
 * a product the day it is registered, with no line of their own.
 */
export interface ProductSurface {
  /** The OpenAPI tag's description (the tag's name is the lookups' `tag`). */
  tagDescription: string;
  /** Its guides, listed in /llms.txt in registry order between the account-wide ones. */
  guides?: readonly Guide[];
  /**
   * The operator routes loading its datasets, mounted under /admin/v1 behind the operator token. They belong to the
   * product because only it knows its rows' shapes and stores (docs/architecture.md, "A product's surface").
   */
  admin?: Hono<AppEnv>;
  /** Datasets bundled with the Worker, listed by `GET /status/data` beside the installed ones. */
  bundled?: readonly BundledDataset[];
}
