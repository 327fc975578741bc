import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import type { EmailResult } from "../../../src/products/email/result";
import { BASE, createAccount, json, lookupEmail, type Envelope } from "../../helpers";

/**
 * products.md, "A source that did not answer": a live source that was asked and gave no answer is cited
 * `coverage: "none"`; the stand-ins of `npm run dev -- --offline` (LIVE_STAND_INS, the resolver that refuses names
 * outside its zone) are cited `coverage: "sample"`, and a domain outside them is uncertain and free.
 */
const OFFLINE = { DOH_URL: env.OFFLINE_DOH_URL, LIVE_STAND_INS: "offline-stand-in" };

async function lookupWith(vars: Partial<Env>, key: string, email: string) {
  const ctx = createExecutionContext();
  const request = new Request(`${BASE}/api/v1/email`, json({ email }, { Authorization: `Bearer ${key}` }));
  const response = await worker.fetch(request, { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return (await response.json()) as Envelope<EmailResult>;
}

const cited = (d: EmailResult, dataset: string) => d.sources.find((s) => s.dataset === dataset);

describe("live sources that gave no answer", () => {
  it("cites live-dns `none` when the resolver failed: risky, unverified, free", async () => {
    const acct = await createAccount({ pack: 5 });
    const { data, meta } = (await lookupEmail<EmailResult>(acct.key, { email: "a@dnsfail.example" })).body;
    expect(data).toMatchObject({ deliverable: "risky", reason: "unverified", mx_found: false });
    expect(cited(data, "live-dns")).toEqual({ dataset: "live-dns", version: "live", coverage: "none" });
    expect(data.sources.filter((s) => s.coverage === "none").map((s) => s.dataset)).toEqual(["live-dns"]);
    expect(meta.credits_used).toBe(0);
  });

  it("cites a handshake that gave no answer as mailbox-smtp `none`, an answered one `full`", async () => {
    const acct = await createAccount({ pack: 5 });
    const greylisted = (await lookupEmail<EmailResult>(acct.key, { email: "x@greylist.example" })).body;
    expect(greylisted.data).toMatchObject({ reason: "unverified", smtp_checked: false, smtp_reason: "greylisted" });
    expect(cited(greylisted.data, "mailbox-smtp")?.coverage).toBe("none");
    expect(cited(greylisted.data, "live-dns")?.coverage).toBe("full");
    expect(greylisted.meta.credits_used).toBe(0);
    const alice = (await lookupEmail<EmailResult>(acct.key, { email: "alice@acme.example" })).body;
    expect(cited(alice.data, "mailbox-smtp")?.coverage).toBe("full");
    expect(cited(alice.data, "rdap-registration")).toEqual({
      dataset: "rdap-registration",
      version: "rdap",
      coverage: "full",
    });
  });

  it("cites RDAP `none` when the registry failed, the date then null", async () => {
    const acct = await createAccount({ pack: 5 });
    const email = `a@rdap-${crypto.randomUUID().slice(0, 8)}.example`;
    const { data, meta } = await lookupWith({ RDAP_BASE_URL: "http://127.0.0.1:9/" }, acct.key, email);
    expect(data).toMatchObject({ domain_registered_at: null, domain_age_days: null });
    expect(cited(data, "rdap-registration")).toEqual({
      dataset: "rdap-registration",
      version: "rdap",
      coverage: "none",
    });
    expect(meta.credits_used).toBe(0);
  });
});

describe("`npm run dev -- --offline`'s stand-ins", () => {
  it("cites the stand-ins' answers as `sample` with the stand-ins' version", async () => {
    const acct = await createAccount({ pack: 5 });
    const { data, meta } = await lookupWith(OFFLINE, acct.key, "alice@acme.example");
    expect(data).toMatchObject({ deliverable: "deliverable", reason: null });
    expect(cited(data, "live-dns")).toEqual({
      dataset: "live-dns",
      version: "offline-stand-in/live",
      coverage: "sample",
    });
    expect(cited(data, "mailbox-smtp")).toMatchObject({ coverage: "sample" });
    expect(cited(data, "mailbox-smtp")?.version).toMatch(/^offline-stand-in\/\d{4}-\d{2}-\d{2}$/);
    expect(meta.credits_used).toBe(1);
  });

  it("answers a real domain outside the stand-ins as uncertain and free, never undeliverable", async () => {
    const acct = await createAccount({ pack: 5 });
    const domain = `real-${crypto.randomUUID().slice(0, 8)}.com`;
    const { data, meta } = await lookupWith(OFFLINE, acct.key, `jane.doe@${domain}`);
    expect(data).toMatchObject({
      deliverable: "risky",
      reason: "unverified",
      mx_found: false,
      smtp_checked: false,
      mailbox_exists: null,
    });
    expect(cited(data, "live-dns")).toEqual({ dataset: "live-dns", version: "live", coverage: "none" });
    expect(meta.credits_used).toBe(0);
  });

  it("still answers the stand-ins' own no-MX domain undeliverable", async () => {
    const acct = await createAccount({ pack: 5 });
    const { data, meta } = await lookupWith(OFFLINE, acct.key, "a@nomail.example");
    expect(data).toMatchObject({ deliverable: "undeliverable", reason: "no_mx" });
    expect(cited(data, "live-dns")?.coverage).toBe("sample");
    expect(meta.credits_used).toBe(0);
  });
});
