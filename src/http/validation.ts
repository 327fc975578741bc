import { zValidator } from "@hono/zod-validator";
import type { Context, ValidationTargets } from "hono";
import { z } from "zod";
import type { AppEnv } from "../types";
import { BODY_BYTES, readBody } from "./body";
import { validationFailed, type FieldErrors } from "./errors";
import { attachDoc } from "./openapi";

/** Zod issues -> `error.errors`: keyed by dotted field path (`emails.3`), the body itself as `body`. */
export function fieldErrors(error: z.core.$ZodError, root = "body"): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.map(String).join(".") : root;
    (errors[key] ??= []).push(issue.message);
  }
  return errors;
}

function validated<T extends z.ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return zValidator(target, schema, (result) => {
    if (!result.success) throw validationFailed(fieldErrors(result.error, target === "json" ? "body" : target));
  });
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * A body that is absent, not declared as JSON, over `maxBytes`, not UTF-8 or not JSON at all is a 422 like any other
 * bad field.
 */
async function assertJsonBody(c: Context<AppEnv>, maxBytes: number) {
  const mediaType = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim();
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw validationFailed({ body: ["Send a JSON body with Content-Type: application/json."] });
  }
  const text = await readBody(c, maxBytes);
  try {
    JSON.parse(text);
  } catch {
    throw validationFailed({ body: ["The body is not valid JSON."] });
  }
}

/**
 * Validates the JSON body with `schema`; the same schema documents the request in OpenAPI, with its byte limit
 * (`x-max-bytes`, default `BODY_BYTES.json`).
 */
export function jsonBody<T extends z.ZodType>(schema: T, maxBytes: number = BODY_BYTES.json) {
  const inner = validated("json", schema);
  const middleware: typeof inner = async (c, next) => {
    await assertJsonBody(c as unknown as Context<AppEnv>, maxBytes);
    return inner(c, next);
  };
  return attachDoc(middleware, { body: schema, bodyBytes: maxBytes });
}

export const queryParams = <T extends z.ZodType>(schema: T) => attachDoc(validated("query", schema), { query: schema });

export const pathParams = <T extends z.ZodType>(schema: T) => attachDoc(validated("param", schema), { params: schema });
