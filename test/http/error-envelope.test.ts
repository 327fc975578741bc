import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { lastResortAnswer, onError } from "../../src/http/error-handler";
import { requestId } from "../../src/http/request-id";
import type { AppEnv } from "../../src/types";

/**
 * Any failure answers the error envelope with `X-Request-Id`, never the runtime's bare 500: the app's own chain
 * (src/app.ts: requestId first, onError last) and the Worker's last resort (src/index.ts) for what escapes the app.
 */
function appThrowing(thrown: () => unknown) {
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.get("/t", (c) => {
    c.header("Content-Length", "999");
    throw thrown();
  });
  app.onError(onError);
  return app;
}

async function expectServerError(response: Response) {
  expect(response.status).toBe(500);
  expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
  const body = (await response.json()) as { success: boolean; error: { code: string; request_id: string } };
  expect(body.success).toBe(false);
  expect(body.error.code).toBe("SERVER_ERROR");
  expect(body.error.request_id).toMatch(/^req_[0-9a-f]{32}$/);
  expect(response.headers.get("X-Request-Id")).toBe(body.error.request_id);
}

describe("uncaught failures answer the envelope with a request id", () => {
  const cases: [string, () => unknown][] = [
    ["an Error", () => new Error("boom")],
    ["a string", () => "boom"],
    ["undefined", () => undefined],
    ["a plain object", () => ({ reason: "boom" })],
  ];
  for (const [label, thrown] of cases) {
    it(`a route that throws ${label}`, async () => {
      await expectServerError(await appThrowing(thrown).request("https://api.test/t"));
    });
  }

  it("the Worker's last resort, for a failure outside the app", async () => {
    await expectServerError(lastResortAnswer("boom", new Request("https://api.test/api/v1/account")));
  });
});
