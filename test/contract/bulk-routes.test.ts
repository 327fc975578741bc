/**
 * The HTTP routes of a bulk run, once per product with `bulk`, as a customer calls them (each answer checked against
 * the OpenAPI document by `call`/`fetchChecked`): start with a webhook, poll until it completes, list, read the CSV,
 * redeliver the webhook; cancel a queued run; resume one stopped for credits after a top-up.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createJob } from "../../src/engines/bulk/create";
import { runJob } from "../../src/engines/bulk/run";
import { anotherKey, bearer, call, accountObject, json } from "../helpers";
import { fetchChecked } from "../openapi-check";
import { capturedQueue, funded, lookupWith, setUp, subjectsWith, type Funded } from "./helpers";

const SUBJECTS = subjectsWith((p) => p.bulk).filter((s) => s.registered);
beforeAll(() => setUp(SUBJECTS));

type Job = { id: number; status: string; stopped_reason: string | null };

describe.each(SUBJECTS)("a bulk run's routes over HTTP: $label", ({ product, samples }) => {
  const base = `/api/v1/${product.name}/bulk`;
  const auth = (acct: Funded) => ({ Authorization: `Bearer ${acct.key}` });
  /** A run created without its queue message: it stays queued until the test runs it. */
  const held = async (acct: Funded, inputs: unknown[]) => {
    const queue = capturedQueue();
    const { row } = await createJob(queue.env, product, {
      accountId: acct.accountId,
      keyId: acct.keyId,
      inputs,
      options: {},
      webhookUrl: null,
      idempotencyKey: null,
    });
    return { id: row.id, run: () => runJob(queue.env, row.id, lookupWith(product)) };
  };

  it("starts, completes, lists, answers its CSV and redelivers its webhook", async () => {
    const acct = await funded(5);
    const body = {
      [product.bulk!.field]: samples.paid(2),
      webhook_url: `${env.RECEIVER_URL}/ok/${crypto.randomUUID()}`,
    };
    const started = await call<{ job: Job; webhook_secret: string }>(base, json(body, auth(acct)));
    expect([started.status, started.body.data.webhook_secret]).toEqual([202, expect.stringMatching(/^whsec_/)]);
    const id = started.body.data.job.id;
    // Polled 4 times a second at most, and read after with a second key: a key makes at most 5 requests a second.
    let job: Job | undefined;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      job = (await call<{ job: Job }>(`${base}/${id}`, bearer(acct.key))).body.data.job;
      if (job.status === "completed") break;
    }
    expect(job).toMatchObject({ id, status: "completed" });
    const key = await anotherKey(acct);
    const listed = await call<{ jobs: Job[] }>(base, bearer(key));
    expect(listed.body.data.jobs.map((j) => j.id)).toEqual([id]);
    const results = await fetchChecked(`https://api.test${base}/${id}/results`, bearer(key));
    expect(results.headers.get("Content-Type")).toMatch(/^text\/csv/);
    expect((await results.text()).trim().split(/\r?\n/)).toHaveLength(3);
    const redelivered = await call(`${base}/${id}/webhook/redeliver`, { method: "POST", ...bearer(key) });
    expect(redelivered.status).toBe(202);
  });

  it("cancels a queued run", async () => {
    const acct = await funded(1);
    const { id } = await held(acct, samples.paid(1));
    const cancelled = await call<{ job: Job }>(`${base}/${id}/cancel`, { method: "POST", ...bearer(acct.key) });
    expect([cancelled.status, cancelled.body.data.job.status]).toEqual([200, "cancelled"]);
  });

  it("resumes a run stopped for credits once credits arrive", async () => {
    const acct = await funded(1);
    const { id, run } = await held(acct, samples.paid(3));
    await run();
    const stopped = await call<{ job: Job }>(`${base}/${id}`, bearer(acct.key));
    expect(stopped.body.data.job.stopped_reason).toBe("insufficient_credits");
    await accountObject(acct.accountId).addCredits({ bucket: "pack", amount: 5, note: null, requestId: null });
    const resumed = await call<{ job: Job }>(`${base}/${id}/resume`, { method: "POST", ...bearer(acct.key) });
    expect([resumed.status, resumed.body.data.job.stopped_reason]).toEqual([200, null]);
  });
});
