/**
 * The usage page's credits come from the account's ledger (docs/dashboard.md, "Usage"): after each kind of charge
 * (a single lookup, a batch, a bulk run, a monitor run, a partner check) the page's figures by product, its table by
 * day and its totals equal what the ledger's charge rows took from the balance.
 */
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { Balance } from "../../../durable-objects/account/balance";
import { LIMITS } from "../../../src/limits/limiter";
import { resetBreakers } from "../../../src/platform/partners/guard";
import { type Browser, createSecretKey, signedUpOwner } from "../../dashboard-browser";
import { accountRows, bearer, call, accountObject, json } from "../../helpers";

vi.setConfig({ testTimeout: 60_000 });

const decode = (text: string) => text.replaceAll("&quot;", '"').replaceAll("&amp;", "&");
const DAY_MS = 86_400_000;
const today = () => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

interface PageFigures {
  products: string[];
  /** Credits today per product, from the charts' data. */
  chart: Record<string, number>;
  /** Today's row of the credits-by-day table, and its footer's total, per product plus `total`. */
  todayRow: number[];
  footer: number[];
}

async function pageFigures(browser: Browser): Promise<PageFigures> {
  const html = await (await browser.fetch("/dashboard/usage")).text();
  const usage = JSON.parse(decode(/data-usage="([^"]*)"/.exec(html)![1]!)) as {
    products: string[];
    credits: Record<string, number[]>;
  };
  const cells = (day: string) =>
    [...(new RegExp(`<tr data-day="${day}">(.*?)</tr>`).exec(html)?.[1] ?? "").matchAll(/class="num">(\d+)</g)].map(
      (m) => Number(m[1]),
    );
  return {
    products: usage.products,
    chart: Object.fromEntries(usage.products.map((p) => [p, usage.credits[p]![29]!])),
    todayRow: cells(today()),
    footer: cells("total"),
  };
}

/** What the ledger's charge rows took from the balance, per product (`unknown` for a row that names none). */
async function ledgerCharges(accountId: string): Promise<Record<string, number>> {
  const { rows } = await accountObject(accountId).ledger(1, 500);
  const charged: Record<string, number> = {};
  for (const row of rows.filter((r) => r.kind === "charge")) {
    const product = row.product ?? "unknown";
    charged[product] = (charged[product] ?? 0) - row.plan_delta - row.pack_delta;
  }
  return charged;
}

/** The page agrees with the ledger: per product in the chart, in today's row, and in the 30 days' totals. */
async function expectPageMatchesLedger(browser: Browser, accountId: string) {
  const [page, ledger] = await Promise.all([pageFigures(browser), ledgerCharges(accountId)]);
  const expected = page.products.map((p) => ledger[p] ?? 0);
  const total = Object.values(ledger).reduce((a, b) => a + b, 0);
  expect(page.chart).toEqual(Object.fromEntries(page.products.map((p, i) => [p, expected[i]])));
  expect(page.todayRow).toEqual([...expected, total]);
  expect(page.footer).toEqual([...expected, total]);
  return { ledger, total };
}

/**
 * Waits until the ledger's charges of `product` pass `was`: an API lookup settles after its answer is sent
 * (docs/billing.md, "Settling after the answer"), so its charge row may land a moment after the response.
 */
async function ledgerPasses(accountId: string, product: string, was: number) {
  const deadline = Date.now() + 10_000;
  while (((await ledgerCharges(accountId))[product] ?? 0) <= was && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * Every request of the test's key, sent at most at the key's rate (5 a second, LIMITS.key): one request each 200 ms
 * after the one before is never refused by the key's limit (GCRA), however fast the steps between them run. Sent as
 * fast as the steps allowed, the five charges' eight requests came within less than a second on a quick run, and the
 * one refused RATE_LIMITED (a monitor run) charged nothing: its step waited 10 s for a charge that never came.
 */
let nextSendAt = 0;
async function paced<T = Record<string, unknown>>(path: string, init: RequestInit) {
  const wait = nextSendAt - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  nextSendAt = Date.now() + LIMITS.key.windowMs / LIMITS.key.limit;
  return call<T>(path, init);
}

let exchange = 300;
const us = (tail: string) => `+1650${++exchange}${tail}`;

describe("dashboard: usage from the ledger", () => {
  let browser: Browser;
  let key: string;
  let accountId: string;
  let auth: Record<string, string>;
  const post = <T = Record<string, unknown>>(path: string, body: unknown) =>
    paced<T>(`/api/v1/${path}`, json(body, auth));
  /**
   * A phone lookup the network partner answered (charged). A file run before this one in the same isolate may leave
   * the partners' breakers open (test/products/phone/network.test.ts opens them on purpose), and an answer given
   * while they are open is unchecked and free; such an answer is asked again with a fresh number after closing them.
   */
  async function partnerCheck(): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      resetBreakers();
      const answer = await post<{ network_checked: boolean }>("phone", { phone: us("0000"), network: true });
      if (answer.body.data?.network_checked || attempt === 4) return answer.body;
    }
  }

  beforeAll(async () => {
    ({ browser } = await signedUpOwner("usage-ledger"));
    key = await createSecretKey(browser, { scopes: ["account", "email", "phone"] });
    auth = bearer(key).headers as Record<string, string>;
    accountId = String((await paced<{ id: string }>("/api/v1/account", bearer(key))).body.data.id);
    resetBreakers();
  });

  it("a lookup, a batch, a bulk run, a monitor run and a partner check each show as the ledger charged", async () => {
    const run = Date.now();
    const steps: [string, string, () => Promise<unknown>][] = [
      ["single lookup", "email", () => post("email", { email: `one-${run}@catchall.example` })],
      [
        "batch",
        "email",
        () => post("email/batch", { emails: [`b1-${run}@catchall.example`, `b2-${run}@catchall.example`] }),
      ],
      ["bulk run", "email", () => bulkRun([`k1-${run}@catchall.example`, `k2-${run}@catchall.example`])],
      ["monitor run", "phone", () => monitorRun(us("0000"))],
      ["partner check", "phone", partnerCheck],
    ];
    let before = 0;
    for (const [step, product, charge] of steps) {
      const was = (await ledgerCharges(accountId))[product] ?? 0;
      const answer = await charge();
      await ledgerPasses(accountId, product, was);
      const { ledger, total } = await expectPageMatchesLedger(browser, accountId);
      // `?? 0`: a product with no charge yet still fails with the step and its answer, not a type error.
      expect(ledger[product] ?? 0, `${step}: ${JSON.stringify(answer)}`).toBeGreaterThan(was);
      expect(total, step).toBeGreaterThan(before);
      before = total;
    }
    expect((await pageFigures(browser)).products).not.toContain("unknown");
  });

  it("a charge recorded before the ledger named products shows as unknown, in the totals still", async () => {
    const was = (await ledgerCharges(accountId)).email ?? 0;
    const answer = await post("email", { email: `old-${Date.now()}@catchall.example` });
    // Its charge row, settled after the answer, is the ledger's last before it is made to look old.
    await ledgerPasses(accountId, "email", was);
    await accountRows(accountId, "UPDATE ledger SET product = NULL WHERE id = (SELECT MAX(id) FROM ledger)");
    const { ledger } = await expectPageMatchesLedger(browser, accountId);
    expect(ledger.unknown, JSON.stringify(answer.body)).toBe(1);
    expect((await pageFigures(browser)).products.at(-1)).toBe("unknown");
  });

  it("an object whose ledger predates the product column gains it, its old rows null", async () => {
    await runInDurableObject(accountObject(accountId), (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec("ALTER TABLE ledger DROP COLUMN product");
      new Balance(sql);
      const rows = sql.exec<{ product: string | null }>("SELECT product FROM ledger WHERE kind = 'charge'").toArray();
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.product === null)).toBe(true);
    });
  });

  async function bulkRun(emails: string[]) {
    const { body } = await post<{ job: { id: number } }>("email/bulk", { emails });
    const id = body.data.job.id;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const { body: polled } = await paced<{ job: { status: string } }>(`/api/v1/email/bulk/${id}`, bearer(key));
      if (!["queued", "processing"].includes(polled.data.job.status)) return;
    }
    throw new Error(`bulk run ${id} did not settle`);
  }

  async function monitorRun(phone: string) {
    const { body } = await post<{ monitor: { id: number } }>("phone/monitors", {
      name: "Usage",
      phones: [phone],
      cadence: "weekly",
    });
    await post(`phone/monitors/${body.data.monitor.id}/run`, {});
  }
});
