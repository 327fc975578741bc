/**
 * Monitors, once per product with `monitor` (spec "Events" bodies 2; docs/entity-monitors.md): a first run only sets
 * baselines, a change found by the product's `compare` is reported and posted as `<product>_monitor.run` whose summary
 * equals `last_summary`, `every_run` posts every run, and a run that cannot pay its first entry stops early and posts.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { receiveFeedback } from "../../src/engines/lists/feedback";
import { accountRecipients } from "../../src/engines/mail/recipients";
import { createMonitor } from "../../src/engines/monitors/edit";
import { monitorFamily, runMonitor } from "../../src/engines/monitors/run";
import type { WebhookEvents } from "../../src/engines/monitors/schedule";
import { splitBaseline } from "../../src/engines/monitors/change-reason";
import { monitorById, storedBaselines } from "../../src/engines/monitors/store";
import type { Product } from "../../src/engines/product";
import { makeLei } from "../entity-samples";
import { listMatchers, type ListMatchers } from "../../src/products/ip/lists";
import { createList } from "../../src/products/ip/list-store";
import { nextGeneration } from "./fake-product";
import { admin } from "../helpers";
import { caughtFor, waitForMail } from "../mail-catcher";
import { deliveredAt, WebhookVerifier } from "../webhook-receiver";
import { FAKE, funded, rand, setUp, subjectsWith, type Funded, type Subject } from "./helpers";

/** The monitor's baselines by entry key: the fields the product observed, as its `compare` takes them. */
const baselinesOf = async (env: Env, id: number) =>
  new Map([...(await storedBaselines(env, id))].map(([key, stored]) => [key, splitBaseline(stored).answer]));

const SUBJECTS = subjectsWith((p) => p.monitor);
beforeAll(() => setUp(SUBJECTS));

/** Entries that cost one credit and nothing on a first run, and how to make exactly one of them change. */
interface Watched {
  entries: unknown[];
  change(acct: Funded): Promise<void>;
}

/**
 * The `reason` each product's change below carries (products.md, "Monitor changes"): email's hard bounce suppresses
 * the address; a re-spelled row, a new list or carrier row, or a new generation is read again by a fresh check.
 */
const REASONS: Record<string, string> = {
  email: "suppressed",
  entity: "recheck",
  address: "recheck",
  ip: "recheck",
  phone: "recheck",
  fake: "recheck",
  fakelocal: "recheck",
};

const leiRow = (identifier: string, name: string) => ({
  identifier,
  name,
  status: "active",
  status_detail: "ACTIVE",
  country: "GB",
  registration_status: "ISSUED",
  linked_register: null,
  linked_identifier: null,
});

const WATCHED: Record<string, (subject: Subject) => Promise<Watched>> = {
  entity: async ({ samples }) => {
    const lei = makeLei(`CTR${rand().toUpperCase()}000`);
    await admin("POST", "/registers/gleif-lei/rows", { rows: [leiRow(lei, "Contract Watch Ltd")] });
    return {
      entries: [lei, samples.free()],
      change: async () =>
        void (await admin("POST", "/registers/gleif-lei/rows", { rows: [leiRow(lei, "Contract Watch Renamed Ltd")] })),
    };
  },
  // A row of the ZIP table re-spelled: the entry written in lower case now gets another correction.
  address: async ({ samples }) => {
    const postcode = `000${String(Math.floor(Math.random() * 90) + 10)}`;
    const row = (locality: string) => ({
      country: "US",
      postcode,
      locality,
      region: "Illinois",
      region_code: "IL",
      subregion: null,
      subregion_code: null,
      latitude: null,
      longitude: null,
      alias: false,
    });
    await admin("POST", "/address-datasets/us-zip-codes/rows", { postcodes: [row("Contract Town")] });
    const entry = { line1: `${rand()} Main St`, locality: "contract town", region: "IL", postcode, country: "US" };
    return {
      entries: [entry, samples.free()],
      change: async () =>
        void (await admin("POST", "/address-datasets/us-zip-codes/rows", { postcodes: [row("CONTRACT TOWN")] })),
    };
  },
  // A deny list that takes in the paid address changes its `list`, the one field that moves.
  ip: async ({ samples }) => {
    const [watch] = samples.paid(1) as string[];
    return {
      entries: [watch, samples.free()],
      change: async () => {
        const owner = env.DB.prepare("SELECT account_id FROM monitors WHERE product = 'ip' AND entries LIKE ?").bind(
          `%"${watch}"%`,
        );
        const accountId = (await owner.first<{ account_id: string }>())!.account_id;
        const { matchers } = listMatchers([watch!]) as { matchers: ListMatchers };
        await createList(env.DB, accountId, { name: "Contract deny", kind: "deny", matchers }, Date.now());
      },
    };
  },
  // A new carrier allocation for exactly this number, in the installed carrier table: one field (carrier) changes.
  phone: async ({ samples }) => {
    const [number] = samples.paid(1) as string[];
    const { datasets } = await admin<{ datasets: { name: string; version: string }[] }>("GET", "/phone-datasets");
    const version = datasets.find((d) => d.name === "phone-carriers")!.version;
    const row = ["44", number!.slice(3), "Contract Carrier"];
    return {
      entries: [number, samples.free()],
      change: async () => void (await admin("POST", "/phone-datasets/phone-carriers/rows", { version, rows: [row] })),
    };
  },
  // A stored repeat keeps its answer for 7 days, so the free (never repeated) entry is the one that sees the change.
  fake: async () => ({ entries: [...FAKE.paid(1), FAKE.free()], change: async () => void nextGeneration() }),
  fakelocal: async () => ({ entries: [...FAKE.paid(1), FAKE.free()], change: async () => void nextGeneration() }),
  // Email answers repeats stored for 7 days: a hard bounce reported for the paid entry suppresses it (decay).
  email: async ({ product, samples }) => {
    const [paid] = samples.paid(1);
    const bounce = { value: paid, outcome: "bounced", kind: "hard", occurredAt: null, detail: {} };
    const change = async (acct: Funded) =>
      void (await receiveFeedback(env, product, {
        accountId: acct.accountId,
        source: "api",
        events: [bounce],
        ignored: 0,
        now: Date.now(),
      }));
    return { entries: [paid, samples.free()], change };
  },
};

function watched(subject: Subject) {
  const make = WATCHED[subject.product.name];
  if (!make)
    throw new Error(
      `Contract tests: add monitored entries for "${subject.product.name}" in test/contract/monitors.test.ts`,
    );
  return make(subject);
}

async function monitored(
  product: Product,
  acct: Funded,
  entries: unknown[],
  webhookEvents: WebhookEvents = "changes",
  alertEmails = false,
) {
  const path = `/ok/contract-monitor-${rand()}`;
  const fields = {
    name: "Contract",
    entries,
    cadence: "weekly" as const,
    webhookUrl: `${env.RECEIVER_URL}${path}`,
    webhookEvents,
    alertEmails,
  };
  const { row, secret } = await createMonitor(env, product, { accountId: acct.accountId, keyId: acct.keyId }, fields);
  return { monitor: row, secret: secret!, path };
}

const deliveries = async (monitorId: number) =>
  (
    await env.DB.prepare("SELECT event, body FROM webhook_deliveries WHERE owner = 'monitor' AND owner_id = ?")
      .bind(String(monitorId))
      .all<{ event: string; body: string }>()
  ).results;

describe.each(SUBJECTS)("monitors: $label", (subject) => {
  const { product } = subject;

  it("only sets baselines on a first run, bills it like a batch and posts nothing", async () => {
    const acct = await funded(5);
    const { entries } = await watched(subject);
    const { monitor } = await monitored(product, acct, entries);
    const first = await runMonitor(env, product, monitor);
    expect(first.summary).toMatchObject({
      checked: 2,
      changed: 0,
      new_baselines: 2,
      credits_used: 1,
      stopped_reason: null,
    });
    expect(first.changes).toEqual([]);
    expect((await baselinesOf(env, monitor.id)).size).toBe(2);
    expect(await deliveries(monitor.id)).toEqual([]);
  });

  it("reports what compare finds and posts <product>_monitor.run whose summary equals last_summary", async () => {
    const acct = await funded(5);
    const watch = await watched(subject);
    const { monitor, secret, path } = await monitored(product, acct, watch.entries);
    const now = Date.now();
    await runMonitor(env, product, monitor, { now });
    const before = await baselinesOf(env, monitor.id);
    await watch.change(acct);
    const second = await runMonitor(env, product, monitor, { now: now + 1_000 });
    const after = await baselinesOf(env, monitor.id);
    const expected = [...before].flatMap(([key, answer]) => product.monitor!.compare(answer, after.get(key)!));
    expect(second.summary).toMatchObject({
      checked: 2,
      changed: 1,
      new_baselines: 0,
      credits_used: 0,
      stopped_reason: null,
    });
    expect(second.changes.flatMap((c) => c.changes)).toEqual(expected);
    expect(expected).toHaveLength(1);
    expect(second.changes.map((c) => c.reason)).toEqual([REASONS[product.name]]);
    const [delivery] = await deliveredAt(path, 1);
    expect(await new WebhookVerifier(secret).verify(delivery!.headers, delivery!.body)).toBe("ok");
    const posted = JSON.parse(delivery!.body);
    expect(posted.event).toBe(`${product.name}_monitor.run`);
    expect(posted.summary).toEqual((await monitorById(env, monitor.id))!.lastSummary);
    expect(posted.summary).toEqual(second.summary);
    expect(posted.changes).toEqual(JSON.parse(JSON.stringify(second.changes)));
    expect(posted.changes[0].reason).toBe(REASONS[product.name]);
    expect(posted.monitor).toMatchObject({
      id: monitor.id,
      name: "Contract",
      cadence: "weekly",
      last_run_at: new Date(now + 1_000).toISOString(),
    });
  });

  it(
    "with alert_emails, mails every member the run's changes: exactly the entries of the webhook body, once per " +
      "run",
    async () => {
      const acct = await funded(5);
      const watch = await watched(subject);
      const { monitor, path } = await monitored(product, acct, watch.entries, "changes", true);
      const now = Date.now();
      await runMonitor(env, product, monitor, { now });
      await watch.change(acct);
      await runMonitor(env, product, monitor, { now: now + 1_000 });
      // The same run again (a retried message): its mail is not queued twice.
      await runMonitor(env, product, { ...monitor, alertEmails: true }, { now: now + 1_000 });
      const [delivery] = await deliveredAt(path, 1);
      const posted = JSON.parse(delivery!.body) as {
        changes: { identifier: string; changes: { field: string; from: unknown; to: unknown }[]; reason: string }[];
      };
      const recipients = await accountRecipients(database(env), acct.accountId);
      expect(recipients).toHaveLength(2);
      for (const to of recipients) {
        const [caught] = await waitForMail(to);
        expect(caught!.subject).toBe("Contract: 1 entry changed");
        const listed = caught!.text
          .split("\n")
          .filter((line) => line.startsWith("* "))
          .map((line) => line.slice(2));
        expect(listed).toEqual(posted.changes.map((entry) => entry.identifier));
        for (const change of posted.changes.flatMap((entry) => entry.changes)) {
          expect(caught!.text).toContain(
            `  ${change.field}: ${JSON.stringify(change.from)} -> ${JSON.stringify(change.to)}`,
          );
          expect(caught!.html).toContain(`<code>${change.field}</code>`);
        }
        expect(caught!.headers["list-unsubscribe"]).toMatch(/^<https:\/\/verify\.test\/mail\/unsubscribe\/msg_\w+>$/);
        expect(caught!.text).not.toContain(acct.key);
        // Each entry says why it changed, by name and in words.
        const reason = REASONS[product.name];
        expect(caught!.text).toContain(`* ${posted.changes[0]!.identifier}\n  reason: ${reason} (`);
        expect(caught!.html).toContain(`<em>reason: ${reason} (`);
        // The link is the monitor's row on the dashboard's monitors page (a browser's page, not the API's URL), and
        // the way to stop is the dashboard's Edit form, not an API call.
        const link = `https://verify.test/dashboard/monitors#monitor-${monitorFamily(product)}-${monitor.id}`;
        expect(caught!.text).toContain(`in the dashboard: ${link}`);
        expect(caught!.html).toContain(`<a href="${link}">`);
        expect(caught!.text).toContain('choose Edit and set "Alert emails to the account\'s members" to off');
        expect(caught!.text).not.toContain("PATCH");
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const to of recipients) expect(await caughtFor(to)).toHaveLength(1);
    },
  );

  it("sends no alert email when alert_emails is off (the default)", async () => {
    const acct = await funded(5);
    const watch = await watched(subject);
    const { monitor, path } = await monitored(product, acct, watch.entries);
    const now = Date.now();
    await runMonitor(env, product, monitor, { now });
    await watch.change(acct);
    await runMonitor(env, product, monitor, { now: now + 1_000 });
    await deliveredAt(path, 1);
    const { messages } = await admin<{ messages: unknown[] }>(
      "GET",
      `/mail?account_id=${acct.accountId}&kind=monitor_alert`,
    );
    expect(messages).toEqual([]);
  });

  it("posts every run, changed or not, with webhook_events every_run", async () => {
    const acct = await funded(5);
    const { entries } = await watched(subject);
    const { monitor, path } = await monitored(product, acct, entries, "every_run");
    const now = Date.now();
    await runMonitor(env, product, monitor, { now });
    await runMonitor(env, product, monitor, { now: now + 1_000 });
    expect((await deliveries(monitor.id)).map((d) => d.event)).toEqual([
      `${product.name}_monitor.run`,
      `${product.name}_monitor.run`,
    ]);
    const posted = (await deliveredAt(path, 2)).map((d) => JSON.parse(d.body).summary.changed);
    expect(posted).toEqual([0, 0]);
  });

  it("stops early when it cannot pay its first entry, and posts the stopped run under changes", async () => {
    const acct = await funded(0);
    const { entries } = await watched(subject);
    const { monitor, path } = await monitored(product, acct, entries);
    const stopped = await runMonitor(env, product, monitor);
    expect(stopped.summary).toMatchObject({
      checked: 0,
      changed: 0,
      new_baselines: 0,
      credits_used: 0,
      stopped_reason: "insufficient_credits",
    });
    expect((await monitorById(env, monitor.id))!.lastSummary).toEqual(stopped.summary);
    const [delivery] = await deliveredAt(path, 1);
    expect(JSON.parse(delivery!.body).summary).toEqual(stopped.summary);
  });

  it("stops where credits run out part way, with the entries it could pay for checked", async () => {
    const acct = await funded(1);
    const { monitor } = await monitored(product, acct, [...subject.samples.paid(2)]);
    const stopped = await runMonitor(env, product, monitor);
    expect(stopped.summary).toMatchObject({
      checked: 1,
      new_baselines: 1,
      credits_used: 1,
      stopped_reason: "insufficient_credits",
    });
    expect(await deliveries(monitor.id)).toHaveLength(1);
  });
});
