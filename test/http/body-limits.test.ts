import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, anotherKey, bearer, call, createAccount, accountObject, type TestAccount } from "../helpers";
import { paramValue, servedOperations, type Operation } from "../hostile/operations";

/**
 * Body limits on the bytes actually read (docs/api-decisions.md, "Request bodies"), on every operation of the served
 * OpenAPI document that takes a body, at the limit it documents (`x-max-bytes`): a body one byte over, streamed with
 * no length (chunked) or sent with its length declared, answers 422 VALIDATION_FAILED (spec, Errors: "over a limit")
 * keyed `body`, the server stops reading soon after the limit, and nothing is charged.
 */
const CHUNK = 256 * 1024;

let acct: TestAccount;
let keys: string[];
let fbKey: string;
let withBodies: Operation[];

beforeAll(async () => {
  acct = await createAccount({ pack: 100 });
  keys = [acct.key, ...(await Promise.all(Array.from({ length: 19 }, () => anotherKey(acct))))];
  fbKey = (await admin<{ feedback_key: string }>("POST", `/accounts/${acct.accountId}/feedback-key`)).feedback_key;
  withBodies = (await servedOperations()).filter((op) => op.body);
});

/** A JSON-looking body of `size` bytes, streamed in chunks; `pulled()` says how many bytes the server asked for. */
function streamed(size: number) {
  let sent = 0;
  const chunk = new TextEncoder().encode("a".repeat(CHUNK));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode('{"x":"'));
      const n = Math.min(CHUNK, size - sent);
      if (n <= 0) return controller.close();
      controller.enqueue(chunk.subarray(0, n));
      sent += n;
    },
  });
  return { stream, pulled: () => sent };
}

let sequence = 0;
function urlOf(op: Operation) {
  let path = op.path;
  for (const p of op.params.filter((p) => p.in === "path"))
    path = path.replace(`{${p.name}}`, encodeURIComponent(paramValue(op, p.name, p.schema, { fbKey })));
  return `https://api.test${path}`;
}
const headers = (extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${keys[++sequence % keys.length]}`,
  "Content-Type": "application/json",
  Origin: "https://shop.example",
  "CF-Connecting-IP": `203.0.113.${sequence % 250}`,
  ...extra,
});

async function refused(response: Response, label: string) {
  const body = (await response.json()) as {
    error?: { code: string; request_id: string; errors?: Record<string, string[]> };
  };
  expect(response.status, label).toBe(422);
  expect(body.error?.code, label).toBe("VALIDATION_FAILED");
  expect(body.error?.errors?.body?.[0], label).toMatch(/over the limit of \d+ bytes/);
  expect(body.error?.request_id, label).toBe(response.headers.get("X-Request-Id"));
}

const ledgerTotal = async () => (await call("/api/v1/account/ledger", bearer(acct.key))).body.meta.total;

describe("request body limits on every operation that takes a body", () => {
  it("documents a byte limit on every request body", () => {
    expect(withBodies.length).toBeGreaterThan(40);
    expect(withBodies.filter((op) => !op.maxBytes).map((op) => `${op.method} ${op.path}`)).toEqual([]);
  });

  it("refuses a streamed body (no length) one byte over the limit with 422, reading little past it, charging nothing", {
    timeout: 120_000,
  }, async () => {
    const before = { balance: await accountObject(acct.accountId).snapshot(), ledger: await ledgerTotal() };
    for (const op of withBodies) {
      const { stream, pulled } = streamed(op.maxBytes! + 1);
      const response = await SELF.fetch(urlOf(op), { method: op.method, headers: headers(), body: stream });
      await refused(response, `${op.method} ${op.path}`);
      expect(pulled(), `${op.method} ${op.path}`).toBeLessThanOrEqual(op.maxBytes! + 4 * CHUNK);
    }
    expect({ balance: await accountObject(acct.accountId).snapshot(), ledger: await ledgerTotal() }).toEqual(before);
  });

  it("refuses a body whose declared length is over the limit before reading it", { timeout: 120_000 }, async () => {
    for (const op of withBodies) {
      const { stream, pulled } = streamed(op.maxBytes! + 1);
      const response = await SELF.fetch(urlOf(op), {
        method: op.method,
        headers: headers({ "Content-Length": String(op.maxBytes! + 7) }),
        body: stream,
      });
      await refused(response, `${op.method} ${op.path}`);
      expect(pulled(), `${op.method} ${op.path}`).toBeLessThanOrEqual(4 * CHUNK);
    }
  });

  it("still reads a body just under the limit (the inbound feedback route: 200)", async () => {
    const inbound = withBodies.find((op) => op.path === "/api/v1/email/feedback/{provider}/{feedbackKey}")!;
    const body = JSON.stringify([
      { email: "a@acme.example", event: "delivered", timestamp: 1700000000, pad: "p".repeat(inbound.maxBytes! - 200) },
    ]);
    const response = await SELF.fetch(urlOf(inbound).replace(/feedback\/[^/]+\//, "feedback/sendgrid/"), {
      method: "POST",
      headers: headers(),
      body,
    });
    expect(response.status).toBe(200);
  });
});
