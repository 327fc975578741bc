/**
 * Every ledger row links to what made it (docs/dashboard.md, "Usage"): a request, a bulk run, a monitor run or a
 * payment, and each of those pages exists for the account (and is not found for another).
 */
import { describe, expect, it, vi } from "vitest";
import { ledgerLink } from "../../../src/surfaces/dashboard/ledger-links";
import { createSecretKey, signedUpOwner } from "../../dashboard-browser";
import { admin, bearer, call, accountObject, json } from "../../helpers";

vi.setConfig({ testTimeout: 60_000 });

describe("dashboard: the ledger's links", () => {
  it.each([
    [{ kind: "charge", request_id: "req_0123" }, "request", "/dashboard/usage?request=req_0123#request"],
    [{ kind: "charge", request_id: "req_0123:recheck2" }, "request", "/dashboard/usage?request=req_0123#request"],
    [{ kind: "charge", request_id: "bulk:17:400" }, "bulk_run", "/dashboard/bulk/runs/17"],
    [
      { kind: "charge", request_id: "monitor:5:1795900000000" },
      "monitor_run",
      "/dashboard/monitors/runs/5/1795900000000",
    ],
    [
      { kind: "pack_credit", request_id: "stripe:cs_test_1" },
      "payment",
      "/dashboard/account/payments/stripe%3Acs_test_1",
    ],
    [{ kind: "plan_credit", request_id: "req_9" }, "payment", "/dashboard/account/payments/req_9"],
  ] as const)("%j links to its %s page", (row, kind, href) => {
    expect(ledgerLink(row)).toMatchObject({ kind, href });
  });

  it("grants and expiries, which no request made, link nowhere", () => {
    expect(ledgerLink({ kind: "monthly_grant", request_id: null })).toBeNull();
    expect(ledgerLink({ kind: "expiry", request_id: null })).toBeNull();
  });

  it("a bulk run's, a monitor run's and a payment's rows link to pages of the account; another's are 404", async () => {
    const { browser } = await signedUpOwner("ledger-links");
    const key = await createSecretKey(browser, { scopes: ["account", "email"] });
    const auth = bearer(key).headers as Record<string, string>;
    const accountId = String((await call<{ id: string }>("/api/v1/account", bearer(key))).body.data.id);
    const run = Date.now();
    const bulk = await call<{ job: { id: number } }>(
      "/api/v1/email/bulk",
      json({ emails: [`l1-${run}@catchall.example`] }, auth),
    );
    const monitor = await call<{ monitor: { id: number } }>(
      "/api/v1/email/monitors",
      json({ name: "Links", emails: [`m1-${run}@catchall.example`], cadence: "weekly" }, auth),
    );
    await call(`/api/v1/email/monitors/${monitor.body.data.monitor.id}/run`, json({}, auth));
    await admin("POST", `/accounts/${accountId}/credits`, { bucket: "pack", amount: 25, note: "a grant" });
    const kinds = await vi.waitFor(
      async () => {
        const { rows } = await accountObject(accountId).ledger(1, 100);
        const bulkRow = rows.find((r) => r.request_id?.startsWith(`bulk:${bulk.body.data.job.id}:`));
        if (!bulkRow) throw new Error("the bulk run's charge is not in the ledger yet");
        return rows.map((r) => ledgerLink(r)?.kind ?? null);
      },
      { timeout: 30_000, interval: 250 },
    );
    expect(kinds).toEqual(expect.arrayContaining(["bulk_run", "monitor_run", "payment"]));

    const html = await (await browser.fetch("/dashboard/usage")).text();
    const links = [...html.matchAll(/<a href="([^"]+)" data-made-by="([a-z_]+)">/g)].map((m) => ({
      href: m[1]!.replaceAll("&amp;", "&"),
      kind: m[2]!,
    }));
    expect(links.map((l) => l.kind)).toEqual(expect.arrayContaining(["bulk_run", "monitor_run", "payment"]));
    const { browser: stranger } = await signedUpOwner("ledger-stranger");
    for (const { href, kind } of links.filter((l) => l.kind !== "request")) {
      const own = await browser.fetch(href);
      expect([kind, own.status]).toEqual([kind, 200]);
      expect([kind, (await stranger.fetch(href)).status]).toEqual([kind, 404]);
    }
    const payment = await (await browser.fetch(links.find((l) => l.kind === "payment")!.href)).text();
    expect(payment).toContain("+25 credits in all");
    const monitorRun = await (await browser.fetch(links.find((l) => l.kind === "monitor_run")!.href)).text();
    expect(monitorRun).toMatch(/Checked 1 entry[^<]*\. [^<]*1 credit used\./);
    expect(monitorRun).toContain("Charged 1 credit in the ledger.");
  });

  it("a new balance's first monthly grant is dated when the account was made, not the month's start", async () => {
    const before = Date.now();
    const { browser } = await signedUpOwner("grant-date");
    const key = await createSecretKey(browser, { scopes: ["account"] });
    const accountId = String((await call<{ id: string }>("/api/v1/account", bearer(key))).body.data.id);
    const { rows } = await accountObject(accountId).ledger(1, 100);
    const grant = rows.find((r) => r.kind === "monthly_grant")!;
    expect(grant.plan_delta).toBe(100);
    expect(grant.at).toBeGreaterThanOrEqual(before);
  });
});
