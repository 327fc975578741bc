import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sweepRetention } from "../../../workers/retention";

const DAY = 86_400_000;

async function insert(owner: string, ownerId: string, status: string, ageDays: number) {
  const at = Date.now() - ageDays * DAY;
  const row = await env.DB.prepare(
    "INSERT INTO webhook_deliveries (owner, owner_id, event, url, secret, body, status, detail, attempts, " +
      "created_at, updated_at) VALUES (?, ?, 'e', 'https://x.test/', 'whsec_x', '{}', ?, NULL, 1, ?, ?) RETURNING id",
  )
    .bind(owner, ownerId, status, at, at)
    .first<{ id: number }>();
  return row!.id;
}

describe("webhook delivery retention (daily cron)", () => {
  it("deletes settled records past 30 days but keeps pending ones, recent ones and each monitor's latest", async () => {
    const suffix = crypto.randomUUID();
    const oldJob = await insert("job", `j-${suffix}`, "delivered", 31);
    const oldCallback = await insert("callback", `c-${suffix}`, "failed", 40);
    const stuck = await insert("job", `p-${suffix}`, "pending", 31);
    const recent = await insert("job", `r-${suffix}`, "delivered", 29);
    const monitorOlder = await insert("monitor", `m-${suffix}`, "delivered", 70);
    const monitorLatest = await insert("monitor", `m-${suffix}`, "failed", 35);
    await sweepRetention(env);
    const ids = [oldJob, oldCallback, stuck, recent, monitorOlder, monitorLatest];
    const left = await env.DB.prepare(
      `SELECT id FROM webhook_deliveries WHERE id IN (${ids.join(",")}) ORDER BY id`,
    ).all<{ id: number }>();
    expect(left.results.map((r) => r.id)).toEqual([stuck, recent, monitorLatest]);
  });
});
