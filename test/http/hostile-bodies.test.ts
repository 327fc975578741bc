import { env, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { queueMail } from "../../src/engines/mail/outbox";
import { BODY_BYTES } from "../../src/http/body";
import { Browser, signedUpOwner } from "../dashboard-browser";
import { admin, BASE } from "../helpers";

/**
 * Bodies read whole before any check (found by the second attack: a 64 MB body to /stripe/webhook or a dashboard form
 * added about 190 MB to the isolate, whose production limit is 128 MB). Every route that reads a body goes through
 * the one bounded reader (src/http/body.ts, docs/api-decisions.md "Request bodies"): a body over its limit is refused
 * with little read past the limit, streamed with no length or with its length declared.
 */
vi.setConfig({ testTimeout: 60_000 });

const CHUNK = 64 * 1024;

/** A body of `size` bytes streamed in chunks with no declared length; `pulled()` says how many the server asked for. */
function streamed(size: number, head = "") {
  let sent = 0;
  const chunk = new TextEncoder().encode("a".repeat(CHUNK));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0 && head) controller.enqueue(new TextEncoder().encode(head));
      const n = Math.min(CHUNK, size - sent);
      if (n <= 0) return controller.close();
      controller.enqueue(chunk.subarray(0, n));
      sent += n;
    },
  });
  return { stream, pulled: () => sent };
}

describe("bodies are read through the bounded reader", () => {
  it(`/stripe/webhook refuses a body over ${BODY_BYTES.stripe} bytes (413) having read little past it`, async () => {
    const { stream, pulled } = streamed(BODY_BYTES.stripe * 4, '{"id":"evt_x","pad":"');
    const response = await SELF.fetch(`${BASE}/stripe/webhook`, {
      method: "POST",
      headers: { "Stripe-Signature": "t=1,v1=00", "Content-Type": "application/json" },
      body: stream,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ received: false });
    expect(pulled()).toBeLessThanOrEqual(BODY_BYTES.stripe + 4 * CHUNK);
  });

  it("a signed-out dashboard form over its limit is refused (413) before the CSRF check reads it", async () => {
    const browser = new Browser();
    const csrf = await browser.token("/dashboard/sign-in");
    const { stream, pulled } = streamed(BODY_BYTES.anonymousForm * 8, `_csrf=${csrf}&email=`);
    const response = await browser.fetch("/dashboard/sign-in", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: stream,
    });
    expect(response.status).toBe(413);
    expect(pulled()).toBeLessThanOrEqual(BODY_BYTES.anonymousForm + 4 * CHUNK);
  });

  it("a signed-in dashboard form over its limit is refused (413), multipart too", async () => {
    const { browser } = await signedUpOwner("big-form");
    const csrf = await browser.token("/dashboard/keys");
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=xyz"]) {
      const { stream, pulled } = streamed(BODY_BYTES.form * 3, `_csrf=${csrf}&name=`);
      const response = await browser.fetch("/dashboard/keys/secret", {
        method: "POST",
        headers: { "Content-Type": type },
        body: stream,
      });
      expect([type, response.status]).toEqual([type, 413]);
      expect(pulled(), type).toBeLessThanOrEqual(BODY_BYTES.form + 4 * CHUNK);
    }
  });

  it("the mail preferences form over its limit is refused (413) having read little past it", async () => {
    const email = `prefs-big-${Date.now()}@example.com`;
    const { id } = await admin<{ id: string }>("POST", "/accounts", { email, email_verified: true });
    const [message] = await queueMail(env, [
      { accountId: id, to: email, kind: "monitor_alert", subject: "s", text: "t", html: "<p>t</p>", optional: true },
    ]);
    const { stream, pulled } = streamed(BODY_BYTES.anonymousForm * 8, "csrf=x&kinds=");
    const response = await SELF.fetch(`${BASE}/mail/preferences/${message}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
      body: stream,
    });
    expect(response.status).toBe(413);
    expect(pulled()).toBeLessThanOrEqual(BODY_BYTES.anonymousForm + 4 * CHUNK);
  });

  it("a declared length over the limit is refused before anything is read", async () => {
    const { stream, pulled } = streamed(BODY_BYTES.stripe * 2);
    const response = await SELF.fetch(`${BASE}/stripe/webhook`, {
      method: "POST",
      headers: { "Stripe-Signature": "t=1,v1=00", "Content-Length": String(BODY_BYTES.stripe * 2) },
      body: stream,
    });
    expect(response.status).toBe(413);
    expect(pulled()).toBeLessThanOrEqual(4 * CHUNK);
  });
});
