import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { KEPT_RUNS, recentRuns, recordRun } from "../../../src/engines/monitors/store";
import { Browser, createSecretKey, followLatestLink, signedUpOwner, uniqueEmail } from "../../dashboard-browser";
import { apiCall, apiErrors, errorsOn, htmlText } from "./page-errors";

vi.setConfig({ testTimeout: 30_000 });

/** An owner with a key that reaches email monitors, and that key's id as the monitors page offers it. */
async function ownerWithKey(label: string) {
  const { browser, email } = await signedUpOwner(label);
  const key = await createSecretKey(browser, { scopes: ["email", "account"] });
  const keyId = /name="key_id"[^>]*><option value="(key_[0-9A-Za-z]+)"/.exec(
    await (await browser.fetch("/dashboard/monitors")).text(),
  )![1]!;
  return { browser, email, key, keyId };
}

const NEW = {
  name: "Signups",
  entries: "deliverable@service.test\nundeliverable@service.test",
  cadence: "weekly",
  webhook_url: "https://hooks.example.com/monitors",
  webhook_events: "changes",
  alert_emails: "on",
};

describe("dashboard: monitors", () => {
  it("a monitor created on the dashboard is the API's: same object, its key, its secret shown once", async () => {
    const { browser, key, keyId } = await ownerWithKey("mon-create");
    const made = await browser.submit("/dashboard/monitors", "/dashboard/monitors/email", { key_id: keyId, ...NEW });
    expect(made.status).toBe(200);
    const html = await made.text();
    expect(/id="webhook-secret">\s*whsec_[0-9A-Za-z_-]+/.test(html)).toBe(true);
    const listed = await apiCall(key, "/email/monitors");
    expect(listed.status).toBe(200);
    const [monitor] = (listed.body.data as { monitors: Record<string, unknown>[] }).monitors;
    expect(monitor).toMatchObject({
      name: "Signups",
      emails: ["deliverable@service.test", "undeliverable@service.test"],
      cadence: "weekly",
      webhook_url: "https://hooks.example.com/monitors",
      webhook_events: "changes",
      alert_emails: true,
      last_summary: null,
    });
    expect(html).toContain(`${monitor!.id} · Signups`);
    expect((await browser.fetch("/dashboard/monitors")).status).toBe(200);
  });

  it("edit follows the API's PATCH rules and refuses what it refuses, with the same messages", async () => {
    const { browser, key, keyId } = await ownerWithKey("mon-edit");
    await browser.submit("/dashboard/monitors", "/dashboard/monitors/email", { key_id: keyId, ...NEW });
    const id = ((await apiCall(key, "/email/monitors")).body.data as { monitors: { id: number }[] }).monitors[0]!.id;
    const path = `/dashboard/monitors/email/${id}`;
    const cases: [Record<string, string>, Record<string, unknown>][] = [
      [{}, {}],
      [{ webhook_url: "http://hooks.example.com/x" }, { webhook_url: "http://hooks.example.com/x" }],
      [{ webhook_url: "https://u:p@hooks.example.com/x" }, { webhook_url: "https://u:p@hooks.example.com/x" }],
      [{ name: "n".repeat(101) }, { name: "n".repeat(101) }],
      [{ cadence: "daily" }, { cadence: "daily" }],
    ];
    for (const [form, body] of cases) {
      const page = await browser.submit("/dashboard/monitors", path, form);
      const refused = await apiCall(key, `/email/monitors/${id}`, "PATCH", body);
      expect([page.status, refused.status, refused.body.error?.code]).toEqual([422, 422, "VALIDATION_FAILED"]);
      expect(errorsOn(await page.text())).toEqual(apiErrors(refused.body.error));
    }
    const saved = await browser.submit("/dashboard/monitors", path, {
      cadence: "monthly",
      entries: "deliverable@service.test",
      webhook_remove: "on",
      alert_emails: "off",
    });
    // Redirect after the post (no new secret to show): the address bar is the monitors page, with the notice.
    expect([saved.status, saved.headers.get("Location")]).toEqual([
      303,
      `/dashboard/monitors?saved=${id}#monitor-email-${id}`,
    ]);
    expect(await (await browser.fetch(`/dashboard/monitors?saved=${id}`)).text()).toContain(`Monitor ${id} saved.`);
    const { monitor } = (await apiCall(key, `/email/monitors/${id}`)).body.data as { monitor: Record<string, unknown> };
    expect(monitor).toMatchObject({
      name: "Signups",
      emails: ["deliverable@service.test"],
      cadence: "monthly",
      webhook_url: null,
      alert_emails: false,
    });
  });

  it("run now is paid by the monitor's key; the last runs show with their changes; delete removes all", async () => {
    const { browser, key, keyId } = await ownerWithKey("mon-run");
    await browser.submit("/dashboard/monitors", "/dashboard/monitors/email", {
      key_id: keyId,
      ...NEW,
      webhook_url: "",
      alert_emails: "off",
    });
    const id = ((await apiCall(key, "/email/monitors")).body.data as { monitors: { id: number }[] }).monitors[0]!.id;
    const ran = await browser.submit("/dashboard/monitors", `/dashboard/monitors/email/${id}/run`);
    // Redirect after the post: to the run's own page, which a reload does not run again.
    expect(ran.status).toBe(303);
    const runPage = ran.headers.get("Location")!;
    expect(runPage).toMatch(new RegExp(`^/dashboard/monitors/runs/${id}/\\d{13}$`));
    const html = await (await browser.fetch(runPage)).text();
    expect(html).toContain(`email monitor ${id} · Signups, run at`);
    expect(html).toContain(
      "Checked 2 entries: 1 deliverable, 0 risky, 1 undeliverable. Nothing changed against the baselines. " +
        "2 first baselines recorded. No credits used.",
    );
    expect(html).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z" data-local="">/);
    const { monitor } = (await apiCall(key, `/email/monitors/${id}`)).body.data as { monitor: Record<string, unknown> };
    expect(monitor.last_summary).toEqual({
      checked: 2,
      deliverable: 1,
      risky: 0,
      undeliverable: 1,
      changed: 0,
      new_baselines: 2,
      credits_used: 0,
      stopped_reason: null,
    });
    await browser.submit("/dashboard/monitors", `/dashboard/monitors/email/${id}/run`);
    const second = await (await browser.fetch("/dashboard/monitors")).text();
    expect(second).toContain("Last runs (2)");
    expect(second).toContain(
      "Checked 2 entries: 1 deliverable, 0 risky, 1 undeliverable. Nothing changed against the baselines. No credits",
    );

    // A run's changes are kept with it (the engine's own record of a run, as a scheduled run writes it).
    const change = {
      identifier: "deliverable@service.test",
      input: "x",
      changes: [{ field: "deliverable", from: "deliverable", to: "risky" }],
      reason: "recheck",
    };
    for (let i = 0; i < KEPT_RUNS; i++)
      await recordRun(env, id, {
        baselines: [],
        summary: { checked: 1, changed: 1 },
        now: Date.now() + i,
        changes: [change],
      });
    expect(await recentRuns(env, id)).toHaveLength(KEPT_RUNS);
    const kept = htmlText(await (await browser.fetch("/dashboard/monitors")).text());
    expect(kept).toContain("Last runs (5)");
    expect(kept).toContain(
      '<td>deliverable@service.test</td><td>recheck</td><td>deliverable</td><td>"deliverable"</td><td>"risky"</td>',
    );

    const deleted = await browser.submit("/dashboard/monitors", `/dashboard/monitors/email/${id}/delete`);
    expect([deleted.status, deleted.headers.get("Location")]).toEqual([303, `/dashboard/monitors?deleted=${id}`]);
    expect(await recentRuns(env, id)).toEqual([]);
    const gone = await apiCall(key, `/email/monitors/${id}`);
    expect([gone.status, gone.body.error?.code]).toEqual([404, "NOT_FOUND"]);
  });

  it("refuses a foreign key, a key without scope, a post without the token, another account's monitor", async () => {
    const mine = await ownerWithKey("mon-mine");
    const other = await ownerWithKey("mon-other");
    await other.browser.submit("/dashboard/monitors", "/dashboard/monitors/email", { key_id: other.keyId, ...NEW });
    const id = ((await apiCall(other.key, "/email/monitors")).body.data as { monitors: { id: number }[] }).monitors[0]!
      .id;
    const foreignKey = await mine.browser.submit("/dashboard/monitors", "/dashboard/monitors/email", {
      key_id: other.keyId,
      ...NEW,
    });
    expect(foreignKey.status).toBe(422);
    expect(await foreignKey.text()).toContain("key_id: Choose a live secret key of this account with the email scope.");
    for (const path of ["/dashboard/monitors/email/abc/run", "/dashboard/monitors/email/0", "/dashboard/monitors/nope"])
      expect((await mine.browser.submit("/dashboard/monitors", path, { name: "x" })).status).toBe(404);
    for (const action of ["", "/run", "/delete"]) {
      const page = await mine.browser.submit("/dashboard/monitors", `/dashboard/monitors/email/${id}${action}`, {
        name: "taken",
      });
      expect(page.status).toBe(404);
    }
    const ipOnly = await mine.browser.submit("/dashboard/monitors", "/dashboard/monitors/ip", {
      key_id: mine.keyId,
      ...NEW,
      entries: "192.0.2.1",
    });
    expect(ipOnly.status).toBe(422);
    const noToken = await mine.browser.fetch("/dashboard/monitors/email", { form: { key_id: mine.keyId, ...NEW } });
    expect(noToken.status).toBe(403);
    expect(((await apiCall(mine.key, "/email/monitors")).body.data as { monitors: unknown[] }).monitors).toEqual([]);
    const { monitor } = (await apiCall(other.key, `/email/monitors/${id}`)).body.data as { monitor: { name: string } };
    expect(monitor.name).toBe("Signups");
  });

  it("a member creates monitors with a key of their own, as an owner does", async () => {
    const owner = await signedUpOwner("mon-team");
    const memberEmail = uniqueEmail("mon-member");
    await owner.browser.submit("/dashboard/members", "/dashboard/members", { email: memberEmail, role: "member" });
    const member = new Browser();
    await followLatestLink(member, memberEmail);
    const key = await createSecretKey(member, { scopes: ["email"] });
    const keyId = /name="key_id"[^>]*><option value="(key_[0-9A-Za-z]+)"/.exec(
      await (await member.fetch("/dashboard/monitors")).text(),
    )![1]!;
    const made = await member.submit("/dashboard/monitors", "/dashboard/monitors/email", { key_id: keyId, ...NEW });
    expect(made.status).toBe(200); // a webhook URL: its new signing secret is shown on this answer
    expect(((await apiCall(key, "/email/monitors")).body.data as { monitors: unknown[] }).monitors).toHaveLength(1);
    expect(await (await owner.browser.fetch("/dashboard/monitors")).text()).toContain("· Signups");
  });
});

describe("dashboard: the monitors page a person can use", () => {
  it("lists the monitors first, then one create form for the picker's product, with that product's hint", async () => {
    const { browser, keyId } = await ownerWithKey("mon-layout");
    await browser.submit("/dashboard/monitors", "/dashboard/monitors/email", { key_id: keyId, ...NEW });
    const html = htmlText(await (await browser.fetch("/dashboard/monitors")).text());
    expect(html.indexOf('id="monitors-list"')).toBeLessThan(html.indexOf('id="new-monitor"'));
    expect(html.indexOf("· Signups")).toBeLessThan(html.indexOf('id="new-monitor"'));
    // One create form: email's by default, its hint an email address, no other product's hint.
    expect(html.match(/<h3>New [a-z_]+ monitor<\/h3>/g)).toEqual(["<h3>New email monitor</h3>"]);
    expect(html).toContain("emails: one per line, e.g. deliverable@service.test");
    expect(html).not.toContain('{"identifier"');
    expect(html).toContain('href="/dashboard/monitors?new=phone#new-monitor"');
    const phone = htmlText(await (await browser.fetch("/dashboard/monitors?new=phone")).text());
    expect(phone.match(/<h3>New [a-z_]+ monitor<\/h3>/g)).toBeNull();
    expect(phone).toMatch(/<a href="\/dashboard\/monitors\?new=phone#new-monitor" aria-current="page">/);
    // The phone key is missing: the page says where to make one instead of a form that cannot be sent.
    expect(phone).toContain("A phone monitor needs a live secret key with this product's scope");
  });

  it("every family's form shows an example entry (email domains and entity too)", async () => {
    const { browser } = await signedUpOwner("mon-examples");
    await createSecretKey(browser, { scopes: ["email", "phone", "ip", "address", "entity", "account"] });
    const hints: Record<string, string> = {
      email: "e.g. deliverable@service.test",
      email_domain: "one per line, e.g. acme.example",
      entity: 'e.g. [{"identifier":"09900001","type":"company_number","country":"GB"}]',
      phone: "e.g. ",
      ip: "one per line, e.g. ",
      address: "a JSON array of objects, e.g. [{",
    };
    for (const [family, hint] of Object.entries(hints)) {
      const page = htmlText(await (await browser.fetch(`/dashboard/monitors?new=${family}`)).text());
      expect(page, family).toContain(hint);
      expect(page, family).not.toContain("one per line, or a JSON array of objects for values with parts");
    }
  });

  it("Run now can refresh: a repeat within 7 days is answered free, a refreshed run looks it up and pays", async () => {
    const { browser, keyId } = await ownerWithKey("mon-refresh");
    const entry = `refresh-${Date.now()}@catchall.example`;
    const made = await browser.submit("/dashboard/monitors", "/dashboard/monitors/email", {
      key_id: keyId,
      name: "Refresh",
      entries: entry,
      cadence: "weekly",
    });
    expect(made.status).toBe(303);
    const id = Number(/created=(\d+)/.exec(made.headers.get("Location")!)![1]);
    const runNow = async (form: Record<string, string>) => {
      const ran = await browser.submit("/dashboard/monitors", `/dashboard/monitors/email/${id}/run`, form);
      expect(ran.status).toBe(303);
      return htmlText(await (await browser.fetch(ran.headers.get("Location")!)).text());
    };
    expect(await runNow({})).toContain("1 credit used.");
    expect(await runNow({})).toContain("No credits used.");
    const page = htmlText(await (await browser.fetch("/dashboard/monitors")).text());
    expect(page).toMatch(/<input type="checkbox" name="refresh" value="on"\s*\/?> refresh/);
    expect(await runNow({ refresh: "on" })).toContain("1 credit used.");
  });

  it("shows yes/no options as toggles: checked sets true on create, unchecked sets false on edit", async () => {
    const { browser } = await signedUpOwner("mon-toggle");
    const key = await createSecretKey(browser, { scopes: ["phone", "account"] });
    const page = htmlText(await (await browser.fetch("/dashboard/monitors?new=phone")).text());
    expect(page).toMatch(/<input id="new-phone-network" type="checkbox" name="network" value="true"\s*\/?>/);
    const keyId = /name="key_id"[^>]*><option value="(key_[0-9A-Za-z]+)"/.exec(page)![1]!;
    const made = await browser.submit("/dashboard/monitors?new=phone", "/dashboard/monitors/phone", {
      key_id: keyId,
      name: "Numbers",
      entries: "+447700900000",
      cadence: "weekly",
      network: "true",
    });
    expect(made.status).toBe(303);
    const listed = await apiCall(key, "/phone/monitors");
    const [monitor] = (listed.body.data as { monitors: { id: number; network: boolean }[] }).monitors;
    expect(monitor!.network).toBe(true);
    // The edit form shows the current value and sends `false` when the box is left unchecked.
    const edit = htmlText(await (await browser.fetch("/dashboard/monitors")).text());
    const box = `<input id="edit-phone-${monitor!.id}-network"[^>]*checked`;
    expect(edit).toMatch(new RegExp(`<input type="hidden" name="network" value="false"\\s*/?>${box}`));
    await browser.fetch(`/dashboard/monitors/phone/${monitor!.id}`, {
      form: { _csrf: await browser.token("/dashboard/monitors"), network: ["false"] },
    });
    const after = await apiCall(key, `/phone/monitors/${monitor!.id}`);
    expect((after.body.data as { monitor: { network: boolean } }).monitor.network).toBe(false);
  });
});
