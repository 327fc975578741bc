import { describe, expect, it } from "vitest";
import { BASE, bearer, call, createAccount } from "../helpers";
import { assertDocumentedResponse } from "../openapi-check";

/** The checker that every Worker test runs on the responses it receives must itself fail on drift. */
describe("responses checked against the served OpenAPI document", () => {
  it("accepts a real response and rejects one with an extra or a missing field", async () => {
    const acct = await createAccount();
    const { status, body } = await call("/api/v1/account", bearer(acct.key));
    expect(status).toBe(200);
    await assertDocumentedResponse("GET", `${BASE}/api/v1/account`, 200, body);
    const extra = { ...body, data: { ...body.data, surprise: 1 } };
    await expect(assertDocumentedResponse("GET", `${BASE}/api/v1/account`, 200, extra)).rejects.toThrow(/surprise/);
    const { request_id: _dropped, ...meta } = body.meta;
    await expect(assertDocumentedResponse("GET", `${BASE}/api/v1/account`, 200, { ...body, meta })).rejects.toThrow(
      /request_id/,
    );
  });

  it("rejects a status the operation does not list, and an error code its status does not list", async () => {
    await expect(assertDocumentedResponse("GET", `${BASE}/api/v1/account`, 201, { success: true })).rejects.toThrow(
      /does not list/,
    );
    const error = (code: string) => ({ success: false, error: { code, message: "m", request_id: "req_1" } });
    await assertDocumentedResponse("GET", `${BASE}/api/v1/account`, 401, error("UNAUTHENTICATED"));
    await expect(assertDocumentedResponse("GET", `${BASE}/api/v1/account`, 404, error("NOT_FOUND"))).rejects.toThrow(
      /does not list/,
    );
    await expect(
      assertDocumentedResponse("POST", `${BASE}/api/v1/email`, 402, error("JOB_NOT_RESUMABLE")),
    ).rejects.toThrow(/does not match/);
  });

  it("rejects a success answer from a path the document does not have", async () => {
    await expect(assertDocumentedResponse("GET", `${BASE}/api/v1/nowhere`, 200, { success: true })).rejects.toThrow(
      /not in the OpenAPI document/,
    );
  });
});
