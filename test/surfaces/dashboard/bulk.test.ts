import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { type Browser, createSecretKey, signedUpOwner } from "../../dashboard-browser";
import { bearer, call } from "../../helpers";
import { receivedAt } from "../../webhook-receiver";

vi.setConfig({ testTimeout: 60_000 });

interface Job {
  id: number;
  status: string;
  total: number;
  processed: number;
  credits_used: number;
  stopped_reason: string | null;
  webhook_status: string | null;
}

const balance = async (key: string) =>
  (await call<{ balance: { total: number } }>("/api/v1/account", bearer(key))).body.data!.balance.total;

/** Posts the upload form as the page would (multipart, its CSRF token unless `csrf: false`). */
async function upload(
  browser: Browser,
  fields: Record<string, string>,
  file: File | null,
  options: { csrf?: boolean } = {},
) {
  const form = new FormData();
  if (options.csrf !== false) form.set("_csrf", await browser.token("/dashboard/bulk"));
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  if (file) form.set("file", file);
  return browser.fetch("/dashboard/bulk", { method: "POST", body: form });
}

const runId = (response: Response) => {
  expect(response.status).toBe(303);
  const location = response.headers.get("Location")!;
  expect(location).toMatch(/^\/dashboard\/bulk\/runs\/\d+$/);
  return Number(location.split("/").pop());
};

/** Polls the page script's JSON endpoint until the run settles. */
async function settled(browser: Browser, id: number, timeoutMs = 30_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const response = await browser.fetch(`/dashboard/bulk/runs/${id}/progress`);
    expect(response.status).toBe(200);
    const { job } = (await response.json()) as { job: Job };
    if (!["queued", "processing"].includes(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`run ${id} did not settle`);
}

const csvFile = (text: string, name = "list.csv") => new File([text], name, { type: "text/csv" });
const textFile = (text: string, name = "list.txt") => new File([text], name, { type: "text/plain" });

async function ownerWithKey(label: string) {
  const { browser } = await signedUpOwner(label);
  const key = await createSecretKey(browser, { scopes: ["account", "email", "phone"] });
  return { browser, key };
}

describe("dashboard: bulk runs", () => {
  it("a CSV's named column runs through the API with the key: progress, page, results, billed as the API", async () => {
    const { browser, key } = await ownerWithKey("bulk-csv");
    const page = await (await browser.fetch("/dashboard/bulk")).text();
    expect(page).toContain('<a href="/dashboard/bulk" aria-current="page">Bulk runs</a>');
    expect(page).toMatch(/<form id="bulk-upload" method="post" action="\/dashboard\/bulk"/);
    for (const field of ['select id="bulk-product" name="product"', 'name="file" type="file"', 'name="column"'])
      expect(page).toContain(field);
    for (const product of ["email", "phone", "ip", "address", "consistency"])
      expect(page).toContain(`<option value="${product}"`);
    expect(page).not.toContain('<option value="entity"');
    const before = await balance(key);
    const csv =
      'name,Email\nAnn,"anything@catchall.example"\nBob,deliverable@service.test\nCy,other@catchall.example\n';
    const id = runId(await upload(browser, { product: "email", column: "email", key }, csvFile(csv)));

    const job = await settled(browser, id);
    expect(job).toMatchObject({ id, status: "completed", total: 3, processed: 3, credits_used: 2 });
    expect(await balance(key)).toBe(before - 2);
    const api = await call<{ job: Job }>(`/api/v1/email/bulk/${id}`, bearer(key));
    expect(api.body.data.job).toMatchObject({ status: "completed", credits_used: 2 });

    const run = await (await browser.fetch(`/dashboard/bulk/runs/${id}`)).text();
    expect(run).toContain('<progress id="run-progress" value="3" max="3">');
    expect(run).toContain('<strong id="run-status">completed</strong>');
    expect(run).toContain(`<a id="download-results" href="/dashboard/bulk/runs/${id}/results.csv">`);
    expect(run).toContain('<script src="/dashboard/assets/bulk.js">');
    expect(run).toContain(`data-progress-url="/dashboard/bulk/runs/${id}/progress"`);

    const results = await browser.fetch(`/dashboard/bulk/runs/${id}/results.csv`);
    expect(results.status).toBe(200);
    expect(results.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(results.headers.get("Content-Disposition")).toBe(`attachment; filename="email-bulk-${id}.csv"`);
    const lines = (await results.text()).trim().split("\n");
    expect(lines[0]).toMatch(/^index,input,email,/);
    expect(lines.slice(1).map((l) => l.split(",")[1])).toEqual([
      "anything@catchall.example",
      "deliverable@service.test",
      "other@catchall.example",
    ]);
    const list = await (await browser.fetch("/dashboard/bulk")).text();
    // Named by its number within the account (its first run), linked by its id.
    expect(list).toContain(`<a href="/dashboard/bulk/runs/${id}">#1</a>`);
    expect(list).toContain('#1</a></td><td>email</td><td>completed</td><td class="num">3 / 3</td>');
  });

  it("a text file is one value a line (a header line naming the column skipped)", async () => {
    const { browser, key } = await ownerWithKey("bulk-text");
    const id = runId(
      await upload(
        browser,
        { product: "email", key },
        textFile("email\r\ndeliverable@service.test\n\nundeliverable@service.test\n"),
      ),
    );
    expect(await settled(browser, id)).toMatchObject({ status: "completed", total: 2, processed: 2, credits_used: 0 });
    // Address lines take the form's country (the run's `country` option); without one the API's 422 is shown.
    const addressKey = await createSecretKey(browser, { scopes: ["account", "address"] });
    const lines = textFile("10 Downing Street, London SW1A 2AA\n");
    const noCountry = await upload(browser, { product: "address", key: addressKey }, lines);
    expect(noCountry.status).toBe(422);
    expect(await noCountry.text()).toContain("HTTP 422 VALIDATION_FAILED");
    const address = runId(await upload(browser, { product: "address", key: addressKey, country: "gb" }, lines));
    const run = await call<{ job: Job & { country: string } }>(`/api/v1/address/bulk/${address}`, bearer(addressKey));
    expect(run.body.data.job).toMatchObject({ total: 1, country: "GB" });
  });

  it("consistency rows are objects of the CSV header's named fields", async () => {
    const { browser } = await signedUpOwner("bulk-consistency");
    const key = await createSecretKey(browser, { scopes: ["account", "consistency"] });
    const csv = "Email,phone,ip\ndeliverable@service.test,+447700900123,\nundeliverable@service.test,,8.8.8.8\n";
    const id = runId(await upload(browser, { product: "consistency", key }, csvFile(csv)));
    expect(await settled(browser, id)).toMatchObject({ status: "completed", total: 2, processed: 2 });
    const results = await (await browser.fetch(`/dashboard/bulk/runs/${id}/results.csv`)).text();
    expect(results.trim().split("\n")).toHaveLength(3);
    const flat = await upload(browser, { product: "consistency", key }, csvFile("email\na@b.example\n"));
    expect(flat.status).toBe(422);
    expect(await flat.text()).toContain("file: A CSV whose first row names the fields");
  });

  it("a bad file, a missing column or another account's key is a clear 422, nothing started or charged", async () => {
    const { browser, key } = await ownerWithKey("bulk-bad");
    const other = await ownerWithKey("bulk-bad-other");
    const before = await balance(key);
    const cases: [Record<string, string>, File | null, string][] = [
      [{ product: "email", key }, null, "file: Choose a CSV or text file that has rows."],
      [{ product: "email", key }, textFile(""), "file: Choose a CSV or text file that has rows."],
      [
        { product: "email", key },
        new File([new Uint8Array([0x50, 0x4b, 3, 4, 0, 0, 0xff])], "a.xlsx"),
        "file: Not a text",
      ],
      [{ product: "email", key }, csvFile('email\n"unclosed@x.example\n'), "file: Not a readable CSV file"],
      [
        { product: "email", key, column: "mail" },
        csvFile("email\na@b.example\n"),
        "no column named &quot;mail&quot; (it has email)",
      ],
      [{ product: "email", key }, textFile("email\n"), "file: The file has no rows to check."],
      [{ product: "email", key: other.key }, textFile("a@b.example"), "key: Paste a secret key of this account"],
      [{ product: "entity", key }, textFile("a@b.example"), "product: Choose a product."],
    ];
    for (const [fields, file, message] of cases) {
      const response = await upload(browser, fields, file);
      expect(response.status).toBe(422);
      expect(await response.text()).toContain(message);
    }
    // The API's own refusal (the key has no ip scope) is shown with its status; nothing is charged.
    const refused = await upload(browser, { product: "ip", key }, textFile("8.8.8.8"));
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("HTTP 403 KEY_SCOPE_DENIED");
    expect(await balance(key)).toBe(before);
    expect(await (await browser.fetch("/dashboard/bulk")).text()).toContain("No runs yet.");
  });

  it("cancel and resume from the run's page; refusals are 409 with the API's code", async () => {
    const { browser, key } = await ownerWithKey("bulk-cancel");
    const id = runId(await upload(browser, { product: "email", key }, textFile("deliverable@service.test")));
    await settled(browser, id);
    const setState = (status: string, stopped: string | null) =>
      env.DB.prepare(
        "UPDATE bulk_jobs SET status = ?, stopped_reason = ?, cancel_requested = 0, finished_at = NULL WHERE id = ?",
      )
        .bind(status, stopped, id)
        .run();
    const post = async (action: string) =>
      browser.fetch(`/dashboard/bulk/runs/${id}/${action}`, {
        form: { _csrf: await browser.token(`/dashboard/bulk/runs/${id}`) },
      });
    const finished = await post("cancel");
    expect(finished.status).toBe(409);
    expect(await finished.text()).toContain("JOB_ALREADY_FINISHED: The run is already completed.");
    const notResumable = await post("resume");
    expect(await notResumable.text()).toContain("JOB_NOT_RESUMABLE");

    await setState("queued", null);
    expect((await browser.fetch(`/dashboard/bulk/runs/${id}`)).status).toBe(200);
    const cancelled = await post("cancel");
    expect(cancelled.status).toBe(303);
    expect(await settled(browser, id)).toMatchObject({ status: "cancelled" });

    await setState("completed", "insufficient_credits");
    const resumed = await post("resume");
    expect(resumed.status).toBe(303);
    expect(await settled(browser, id)).toMatchObject({ status: "completed", stopped_reason: null, processed: 1 });
  });

  it("redelivery: 10 a minute per person, shared between the API and the dashboard button", async () => {
    const { browser, key } = await ownerWithKey("bulk-redeliver");
    const path = `/ok/dash-bulk-${crypto.randomUUID()}`;
    const id = runId(
      await upload(
        browser,
        { product: "email", key, webhook_url: `${env.RECEIVER_URL}${path}` },
        textFile("deliverable@service.test"),
      ),
    );
    await settled(browser, id);
    const token = await browser.token(`/dashboard/bulk/runs/${id}`);
    const button = () => browser.fetch(`/dashboard/bulk/runs/${id}/redeliver`, { form: { _csrf: token } });
    const api = () => call(`/api/v1/email/bulk/${id}/webhook/redeliver`, { method: "POST", ...bearer(key) });
    const first = await button();
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("The webhook is queued again");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await button()).status);
    for (let i = 0; i < 5; i++) {
      statuses.push((await api()).status);
      await new Promise((resolve) => setTimeout(resolve, 210)); // within the key's 5 a second
    }
    expect(statuses).toEqual([200, 200, 200, 200, 202, 202, 202, 202, 202]);
    const eleventh = await button();
    expect(eleventh.status).toBe(429);
    expect(eleventh.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect(await eleventh.text()).toContain("RATE_LIMITED: Over 10 webhook redeliveries a minute.");
    const viaApi = await api();
    expect(viaApi.status).toBe(429);
    expect((viaApi.body as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
    expect((await receivedAt(path)).length).toBeGreaterThanOrEqual(1);
  });

  it("a state change without the session's CSRF token is refused (403), nothing started", async () => {
    const { browser, key } = await ownerWithKey("bulk-csrf");
    const before = await balance(key);
    const refused = await upload(browser, { product: "email", key }, textFile("a@catchall.example"), { csrf: false });
    expect(refused.status).toBe(403);
    const id = runId(await upload(browser, { product: "email", key }, textFile("deliverable@service.test")));
    await settled(browser, id);
    for (const action of ["cancel", "resume", "redeliver"])
      expect(
        (await browser.fetch(`/dashboard/bulk/runs/${id}/${action}`, { form: { _csrf: "x".repeat(32) } })).status,
      ).toBe(403);
    expect(await balance(key)).toBe(before);
    const list = await (await browser.fetch("/dashboard/bulk")).text();
    expect(list.match(/href="\/dashboard\/bulk\/runs\/\d+"/g)).toHaveLength(1);
  });

  it("another account's run is 404 on every page and endpoint", async () => {
    const { browser, key } = await ownerWithKey("bulk-owner");
    const other = await signedUpOwner("bulk-stranger");
    const id = runId(await upload(browser, { product: "email", key }, textFile("deliverable@service.test")));
    await settled(browser, id);
    for (const path of ["", "/progress", "/results.csv"])
      expect((await other.browser.fetch(`/dashboard/bulk/runs/${id}${path}`)).status).toBe(404);
    const token = await other.browser.token("/dashboard/bulk");
    for (const action of ["cancel", "resume", "redeliver"])
      expect(
        (await other.browser.fetch(`/dashboard/bulk/runs/${id}/${action}`, { form: { _csrf: token } })).status,
      ).toBe(404);
    expect((await other.browser.fetch("/dashboard/bulk/runs/999999999/progress")).status).toBe(404);
    expect((await browser.fetch("/dashboard/bulk/runs/abc")).status).toBe(404);
  });
});
