/**
 * The move of an account's lists from the old D1 layout into its object (durable-objects/account/list-import.ts):
 * rows written straight into D1 as the previous release did are read by the account's first use of its lists, and
 * answer from there; running the move again inserts nothing twice.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { accountRows, admin, bearer, call, createAccount, accountObject, lookupEmail } from "../../helpers";

const HOUR = 3_600_000;

/** A real stored answer for `email`, taken from another account's repeat marker. */
async function storedAnswer(email: string): Promise<string> {
  const donor = await createAccount({ pack: 5 });
  await lookupEmail(donor.key, { email });
  const [row] = await accountRows<{ result: string }>(
    donor.accountId,
    "SELECT result FROM repeats WHERE key = ?",
    email,
  );
  return row!.result;
}

async function oldLayout(accountId: string, answer: string, now: number) {
  await env.DB.batch([
    env.DB.prepare(
      "INSERT INTO repeats (account_id, product, key, result, created_at) VALUES (?, 'email', 'alice@acme.example', " +
        "?, ?)",
    ).bind(accountId, answer, now - HOUR),
    env.DB.prepare(
      "INSERT INTO suppressions (account_id, product, key, reason, source, result, created_at) VALUES (?, 'email', " +
        "'gone@acme.example', 'mailbox_not_found', 'verdict', '{}', ?)",
    ).bind(accountId, now - HOUR),
    ...["first", "second"].map((id) =>
      env.DB.prepare(
        "INSERT INTO history (account_id, product, request_id, value, key, verdict, reason, credits_used, cache_hit, " +
          "suppressed, created_at) VALUES (?, 'email', ?, 'alice@acme.example', 'alice@acme.example', 'deliverable', " +
          "NULL, 1, 0, 0, ?)",
      ).bind(accountId, `req_${id}`, now - 2 * HOUR),
    ),
    env.DB.prepare(
      "INSERT INTO feedback (account_id, product, key, outcome, kind, facet, detail, source, created_at) VALUES (?, " +
        "'email', 'gone@acme.example', 'bounced', 'hard', 'acme.example', '{}', 'api', ?)",
    ).bind(accountId, now - HOUR),
  ]);
}

const counts = (accountId: string) =>
  accountRows(
    accountId,
    "SELECT (SELECT COUNT(*) FROM repeats) AS repeats, (SELECT COUNT(*) FROM suppressions) AS suppressions, " +
      "(SELECT COUNT(*) FROM history) AS history, (SELECT COUNT(*) FROM feedback) AS feedback",
  );

describe("lists of the old D1 layout move into the account's object", () => {
  it("on first use: a repeat answers from them, and the list routes show them", async () => {
    const answer = await storedAnswer("alice@acme.example");
    const acct = await createAccount({ pack: 5 });
    await oldLayout(acct.accountId, answer, Date.now());
    const repeat = await lookupEmail(acct.key, { email: "alice@acme.example" });
    expect(repeat.body.meta).toMatchObject({ credits_used: 0, cache_hit: true, credits_remaining: 5 });
    const listed = await call<{ suppressions: { email: string; source: string }[] }>(
      "/api/v1/email/suppressions",
      bearer(acct.key),
    );
    expect(listed.body.data.suppressions.map((s) => [s.email, s.source])).toEqual([["gone@acme.example", "verdict"]]);
    const history = await call<{ lookups: { request_id: string }[] }>("/api/v1/email/history", bearer(acct.key));
    // The repeat's own answer (newest first), then the two imported rows.
    expect(history.body.data.lookups.map((h) => h.request_id).slice(1)).toEqual(["req_second", "req_first"]);
    expect(history.body.meta).toMatchObject({ total: 3 });
    const summary = await call<{ outcomes: Record<string, number> }>(
      "/api/v1/email/feedback/summary",
      bearer(acct.key),
    );
    expect(summary.body.data.outcomes.bounced).toBe(1);
  });

  it("run again (the operator's move), inserts nothing twice and keeps rows written since", async () => {
    const acct = await createAccount({ pack: 5 });
    await oldLayout(acct.accountId, '{"email":"alice@acme.example"}', Date.now());
    const stub = accountObject(acct.accountId);
    const first = await counts(acct.accountId);
    expect(first).toEqual([{ repeats: 1, suppressions: 1, history: 2, feedback: 1 }]);
    await lookupEmail(acct.key, { email: "bob@acme.example" });
    expect(await stub.importLists()).toBe(0);
    expect(await admin("POST", `/accounts/${acct.accountId}/lists/import`)).toEqual({ imported: 0 });
    expect(await counts(acct.accountId)).toEqual([{ repeats: 2, suppressions: 1, history: 3, feedback: 1 }]);
  });

  it("an account with nothing in D1 starts with empty lists, and the lookup path writes nothing to D1", async () => {
    const acct = await createAccount({ pack: 5 });
    await lookupEmail(acct.key, { email: "carol@acme.example" });
    expect(await counts(acct.accountId)).toEqual([{ repeats: 1, suppressions: 0, history: 1, feedback: 0 }]);
    const d1 = await env.DB.prepare(
      "SELECT (SELECT COUNT(*) FROM repeats WHERE account_id = ?1) + (SELECT COUNT(*) FROM history WHERE account_id " +
        "= ?1) AS n",
    )
      .bind(acct.accountId)
      .first<{ n: number }>();
    expect(d1?.n).toBe(0);
  });
});
