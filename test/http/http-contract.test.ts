import { SELF } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { onError } from "../../src/http/error-handler";
import { requestId } from "../../src/http/request-id";
import type { AppEnv } from "../../src/types";
import { BASE, bearer, call, createAccount, json } from "../helpers";

describe("HTTP contract", () => {
  it("answers unknown paths with 404 NOT_FOUND in the envelope, X-Request-Id equal to request_id", async () => {
    const { response, status, body } = await call("/api/v1/does-not-exist");
    expect(status).toBe(404);
    expect(body.success).toBe(false);
    expect(body.error.code).toBe("NOT_FOUND");
    expect(body.error.request_id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(response.headers.get("X-Request-Id")).toBe(body.error.request_id);
  });

  it("answers a wrong verb on a built path with 405 and an Allow header, before asking for a key", async () => {
    const { response, status, body } = await call("/api/v1/account", { method: "DELETE" });
    expect(status).toBe(405);
    expect(body.error.code).toBe("METHOD_NOT_ALLOWED");
    expect(response.headers.get("Allow")).toBe("GET, HEAD, PATCH");
    expect(response.headers.get("X-Request-Id")).toBe(body.error.request_id);
  });

  it("puts request_id in meta and the header on success", async () => {
    const account = await createAccount();
    const { response, body } = await call("/api/v1/account", bearer(account.key));
    expect(body.success).toBe(true);
    expect(body.meta.request_id).toBe(response.headers.get("X-Request-Id"));
  });

  it("gives each request its own id and ignores a client-sent one", async () => {
    const first = await call("/api/v1/nope", { headers: { "X-Request-Id": "mine" } });
    const second = await call("/api/v1/nope");
    expect(first.body.error.request_id).not.toBe("mine");
    expect(first.body.error.request_id).not.toBe(second.body.error.request_id);
  });

  it("keys validation errors by dotted field path", async () => {
    const account = await createAccount();
    const { status, body } = await call(
      `/admin/v1/accounts/${account.accountId}/keys/secret`,
      json(
        { user_id: account.userId, allowed_ips: ["10.0.0.0/8", "not-an-ip"], scopes: ["email", "bogus"] },
        {
          Authorization: "Bearer test-admin-token",
        },
      ),
    );
    expect(status).toBe(422);
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(Object.keys(body.error.errors!).sort()).toEqual(["allowed_ips.1", "scopes.1"]);
  });

  it("answers a body that is not JSON with 422 VALIDATION_FAILED", async () => {
    const { status, body } = await call("/admin/v1/accounts", {
      method: "POST",
      headers: { Authorization: "Bearer test-admin-token", "Content-Type": "application/json" },
      body: "{not json",
    });
    expect(status).toBe(422);
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.errors).toEqual({ body: ["The body is not valid JSON."] });
  });

  it("answers a body sent without a JSON content type with 422", async () => {
    const { status, body } = await call("/admin/v1/accounts", {
      method: "POST",
      headers: { Authorization: "Bearer test-admin-token" },
      body: JSON.stringify({ email: "x@example.com" }),
    });
    expect(status).toBe(422);
    expect(body.error.errors?.body?.[0]).toContain("Content-Type");
  });

  it("answers a query parameter out of range with 422 keyed by the parameter", async () => {
    const account = await createAccount();
    const { status, body } = await call("/api/v1/account/ledger?page=0", bearer(account.key));
    expect(status).toBe(422);
    expect(Object.keys(body.error.errors!)).toEqual(["page"]);
  });

  it("turns anything unexpected into 500 SERVER_ERROR, logged with the request id and no stack trace", async () => {
    const app = new Hono<AppEnv>();
    app.use("*", requestId());
    app.get("/boom", () => {
      throw new Error("database exploded at secret.ts:42");
    });
    app.onError(onError);
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const response = await app.request(`${BASE}/boom`);
    const body = (await response.json()) as { error: { code: string; message: string; request_id: string } };
    expect(response.status).toBe(500);
    expect(body.error.code).toBe("SERVER_ERROR");
    expect(response.headers.get("X-Request-Id")).toBe(body.error.request_id);
    expect(JSON.stringify(body)).not.toContain("secret.ts");
    expect(log).toHaveBeenCalledOnce();
    expect(String(log.mock.calls[0]![0])).toContain(body.error.request_id);
    expect(String(log.mock.calls[0]![0])).toContain("database exploded");
    log.mockRestore();
  });

  it("serves an OpenAPI 3.1 document, version 1.0.0, without a key, built from the request schemas", async () => {
    const response = await SELF.fetch(`${BASE}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { parameters: { name: string; schema: { minimum?: number } }[] }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/account",
        "/api/v1/account/ledger",
        "/api/v1/account/requests/{requestId}",
        "/api/v1/status/data",
      ]),
    );
    const page = doc.paths["/api/v1/account/ledger"]!.get!.parameters.find((p) => p.name === "page");
    expect(page?.schema.minimum).toBe(1);
    expect(Object.keys(doc.paths).some((p) => p.startsWith("/admin"))).toBe(false);
  });
});
