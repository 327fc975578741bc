import { Hono } from "hono";
import { z } from "zod";
import { database } from "../../db/client";
import { coverageBody } from "../../db/coverage";
import { ok } from "../../http/envelope";
import { notFound, validationFailed, type FieldErrors } from "../../http/errors";
import { BODY_BYTES } from "../../http/body";
import { jsonBody, pathParams } from "../../http/validation";
import { REGISTER_NAMES, REGISTERS, isRegisterName, type Register } from "./registers";
import { completeImport, installedRegisters, removeRegister, upsertRows } from "./store";
import type { AppEnv } from "../../types";

const registerParam = pathParams(z.object({ register: z.string().max(64) }));

function registerNamed(name: string): Register {
  if (!isRegisterName(name)) throw notFound("Register");
  return REGISTERS[name];
}

const nullableText = (max: number) => z.string().max(max).nullable();

/**
 * One register row as scripts/import-register.mjs posts it (Register.parseRow's output): never an address. Limits are
 * generous so that one odd row of a multi-million-row file does not stop an import.
 */
const rowSchema = z.object({
  identifier: z.string().min(1).max(64),
  name: nullableText(2_000),
  status: z.string().min(1).max(100),
  status_detail: nullableText(500),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .nullable(),
  registration_status: nullableText(100),
  linked_register: nullableText(100),
  linked_identifier: nullableText(500),
});

/** Publication date of the file, optionally tagged (`2026-11-22-sample`). */
const versionSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(-[a-z0-9]+)?$/, "A date YYYY-MM-DD, optionally followed by -tag.");

/** Time one DELETE may spend removing rows before it answers `done: false` (the caller repeats). */
const REMOVE_BUDGET_MS = 20_000;

/** Loading company registers: rows in batches, then `complete` installs the register at the file's version. */
export const adminRegisterRoutes = new Hono<AppEnv>()
  .get("/registers", async (c) => {
    const installed = await installedRegisters(database(c.env));
    const registers = REGISTER_NAMES.map((name) => {
      const loaded = installed.get(name);
      return {
        name,
        identifier_type: REGISTERS[name].identifierType,
        countries: REGISTERS[name].countries,
        installed: loaded !== undefined,
        version: loaded?.version ?? null,
        records: loaded?.records ?? null,
        coverage: loaded?.coverage ?? null,
        loaded_at: loaded ? new Date(loaded.loadedAt).toISOString() : null,
      };
    });
    return ok(c, { registers });
  })
  .post(
    "/registers/:register/rows",
    registerParam,
    jsonBody(z.object({ rows: z.array(rowSchema).min(1).max(5_000) }), BODY_BYTES.bulk),
    async (c) => {
      const register = registerNamed(c.req.valid("param").register);
      const { rows } = c.req.valid("json");
      const errors: FieldErrors = {};
      rows.forEach((row, i) => {
        const spelled = register.normalize(row.identifier);
        if (spelled !== row.identifier)
          errors[`rows.${i}.identifier`] = [
            spelled ? `Not in the register's spelling: ${spelled}.` : "Not an identifier of this register.",
          ];
      });
      if (Object.keys(errors).length) throw validationFailed(errors);
      await upsertRows(database(c.env), register.name, rows);
      return ok(c, { register: register.name, rows: rows.length });
    },
  )
  .post(
    "/registers/:register/complete",
    registerParam,
    jsonBody(z.object({ version: versionSchema, records: z.int().min(0), coverage: coverageBody })),
    async (c) => {
      const register = registerNamed(c.req.valid("param").register);
      const { version, records, coverage } = c.req.valid("json");
      const installed = await completeImport(database(c.env), register.name, {
        version,
        records,
        now: Date.now(),
        coverage,
      });
      return ok(c, {
        name: installed.name,
        version,
        records,
        loaded_at: new Date(installed.loadedAt).toISOString(),
        coverage: installed.coverage,
      });
    },
  )
  .on("DELETE", "/registers/:register", registerParam, async (c) => {
    const register = registerNamed(c.req.valid("param").register);
    const removed = await removeRegister(database(c.env), register.name, REMOVE_BUDGET_MS);
    return ok(c, { register: register.name, installed: false, ...removed });
  });
