/**
 * The run page's controls (docs/dashboard.md, "Bulk runs"): each is rendered in every state, hidden unless the state
 * allows it, and marked `data-action` so the page script shows the right ones when the run settles, without a reload.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { type Browser, createSecretKey, signedUpOwner } from "../../dashboard-browser";

vi.setConfig({ testTimeout: 60_000 });

const ACTIONS = ["cancel", "resume", "download", "redeliver"] as const;

/** Each `data-action` control of the page: shown, hidden, or absent. */
async function controls(browser: Browser, id: number) {
  const html = await (await browser.fetch(`/dashboard/bulk/runs/${id}`)).text();
  return Object.fromEntries(
    ACTIONS.map((action) => {
      const tag = new RegExp(`<[a-z]+ [^>]*data-action="${action}"[^>]*>`).exec(html)?.[0];
      return [action, tag === undefined ? "absent" : /\shidden(="[^"]*")?[\s>]/.test(tag) ? "hidden" : "shown"];
    }),
  );
}

async function startRun(browser: Browser, key: string, webhook: boolean): Promise<number> {
  const form = new FormData();
  form.set("_csrf", await browser.token("/dashboard/bulk"));
  form.set("product", "email");
  form.set("key", key);
  if (webhook) form.set("webhook_url", `${env.RECEIVER_URL}/ok/run-controls-${crypto.randomUUID()}`);
  form.set("file", new File(["deliverable@service.test\n"], "list.txt", { type: "text/plain" }));
  const response = await browser.fetch("/dashboard/bulk", { method: "POST", body: form });
  expect(response.status).toBe(303);
  return Number(response.headers.get("Location")!.split("/").pop());
}

const setState = (id: number, status: string, stopped: string | null, processed: number) =>
  env.DB.prepare("UPDATE bulk_jobs SET status = ?, stopped_reason = ?, processed = ? WHERE id = ?")
    .bind(status, stopped, processed, id)
    .run();

async function settled(id: number) {
  for (let i = 0; i < 120; i++) {
    const { job } = (await (await browser.fetch(`/dashboard/bulk/runs/${id}/progress`)).json()) as {
      job: { status: string };
    };
    if (job.status === "completed") return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`run ${id} did not settle`);
}

let browser: Browser;
let withHook: number;
let withoutHook: number;

beforeAll(async () => {
  ({ browser } = await signedUpOwner("run-controls"));
  const key = await createSecretKey(browser, { scopes: ["account", "email"] });
  // Runs the queue may still be working on: their state is set by hand below, after they settle.
  [withHook, withoutHook] = [await startRun(browser, key, true), await startRun(browser, key, false)];
  for (const id of [withHook, withoutHook]) await settled(id);
});

describe("dashboard: the run page's controls by state", () => {
  it.each([
    ["queued", null, 0, { cancel: "shown", resume: "hidden", download: "hidden", redeliver: "hidden" }],
    ["processing", null, 1, { cancel: "shown", resume: "hidden", download: "hidden", redeliver: "hidden" }],
    ["completed", null, 1, { cancel: "hidden", resume: "hidden", download: "shown", redeliver: "shown" }],
    [
      "completed",
      "insufficient_credits",
      0,
      { cancel: "hidden", resume: "shown", download: "shown", redeliver: "shown" },
    ],
    ["completed", "key_spend_cap", 1, { cancel: "hidden", resume: "shown", download: "shown", redeliver: "shown" }],
    ["cancelled", null, 0, { cancel: "hidden", resume: "hidden", download: "hidden", redeliver: "shown" }],
    ["cancelled", null, 1, { cancel: "hidden", resume: "hidden", download: "shown", redeliver: "shown" }],
    ["failed", null, 0, { cancel: "hidden", resume: "hidden", download: "hidden", redeliver: "shown" }],
  ])("%s (stopped: %s, processed %i)", async (status, stopped, processed, expected) => {
    await setState(withHook, status, stopped, processed);
    expect(await controls(browser, withHook)).toEqual(expected);
    await setState(withoutHook, status, stopped, processed);
    expect(await controls(browser, withoutHook)).toEqual({ ...expected, redeliver: "absent" });
  });

  it("the page loads its script and marks the cancel button the e2e test and the script look for", async () => {
    await setState(withHook, "processing", null, 0);
    const html = await (await browser.fetch(`/dashboard/bulk/runs/${withHook}`)).text();
    expect(html).toContain('<script src="/dashboard/assets/bulk.js">');
    expect(html).toContain('id="run-cancel"');
    expect(html).toContain('id="download-results"');
    const css = await (await browser.fetch("/dashboard/assets/app.css")).text();
    expect(css).toContain("[hidden]{display:none!important}");
  });
});
