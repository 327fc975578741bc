import { describe, expect, it } from "vitest";
import { randomToken } from "../../src/platform/tokens";
import { UNKNOWN_KEYS } from "../../src/limits/unknown-keys";
import { admin, bearer, call, createAccount, json } from "../helpers";

/**
 * The per-isolate key cache (src/auth/key-lookup.ts). SELF runs the Worker in this test's isolate, so the isolate's
 * round trips (GET /admin/v1/round-trips) count exactly the key rows it asked D1 for before its answers: the one D1
 * read `GET /account` and the browser endpoints make before answering is the key's. A refusal that leaves them
 * unchanged read nothing.
 */
const account = (key: string, ip: string) => call("/api/v1/account", bearer(key, { "CF-Connecting-IP": ip }));

type Count = { mean: number; max: number };
interface Figures {
  route: string;
  requests: number;
  before_answer: Record<"d1_primary" | "d1_replica", Count>;
}

/** D1 reads before the answer on every route but the operator's: `rows` every lookup, `primary` the primary's. */
async function keyReads() {
  const { routes } = await admin<{ routes: Figures[] }>("GET", "/round-trips");
  const sum = (kind: "d1_primary" | "d1_replica") =>
    routes
      .filter((r) => !r.route.includes("/admin/"))
      .reduce((n, r) => n + Math.round(r.before_answer[kind].mean * r.requests), 0);
  // A key the replica does not know is asked of the primary too: one lookup, two reads.
  return { rows: sum("d1_replica"), primary: sum("d1_primary") };
}
const keyRowsRead = async () => (await keyReads()).rows;
const primaryKeyReads = async () => (await keyReads()).primary;
const randomSecret = () => `sk_live_${randomToken(40)}`;

/** Sends the requests one after another and returns each one's status and error code. */
async function inTurn(count: number, send: (i: number) => ReturnType<typeof call>) {
  const out: { status: number; code: string | undefined; retryAfter: string | null }[] = [];
  for (let i = 0; i < count; i++) {
    const { status, body, response } = await send(i);
    out.push({ status, code: body.error?.code, retryAfter: response.headers.get("Retry-After") });
  }
  return out;
}

describe("key cache: changes apply at once in the isolate that made them", () => {
  it("a revoked key answers 401 on the very next request, though its row was cached", async () => {
    const acct = await createAccount();
    expect((await account(acct.key, "198.51.100.1")).status).toBe(200);
    const reads = await keyRowsRead();
    expect((await account(acct.key, "198.51.100.1")).status).toBe(200);
    expect(await keyRowsRead()).toBe(reads);
    await admin("DELETE", `/keys/${acct.keyId}`);
    const { status, body } = await account(acct.key, "198.51.100.1");
    expect(status).toBe(401);
    expect(body.error.code).toBe("UNAUTHENTICATED");
  });

  it("a member's removal refuses their cached key at once, and adding them back restores it at once", async () => {
    const { id } = await admin<{ id: string }>("POST", "/accounts", {
      email: `owner-${randomToken(8)}@example.com`,
      email_verified: true,
    });
    const email = `member-${randomToken(8)}@example.com`;
    const { user_id } = await admin<{ user_id: string }>("POST", `/accounts/${id}/members`, { email });
    const { key } = await admin<{ key: string }>("POST", `/accounts/${id}/keys/secret`, {
      user_id,
      scopes: ["account"],
    });
    expect((await account(key, "198.51.100.2")).status).toBe(200);
    await admin("DELETE", `/accounts/${id}/members/${user_id}`);
    expect((await account(key, "198.51.100.2")).body.error.code).toBe("KEY_ACCOUNT_MISMATCH");
    await admin("POST", `/accounts/${id}/members`, { email });
    expect((await account(key, "198.51.100.2")).status).toBe(200);
  });

  it("an email confirmation unlocks a cached key at once, and GET /account shows it confirmed", async () => {
    const acct = await createAccount({ verified: false });
    expect((await account(acct.key, "198.51.100.3")).body.error.code).toBe("EMAIL_NOT_VERIFIED");
    await admin("POST", `/accounts/${acct.accountId}/verify-email`);
    const { status, body } = await account(acct.key, "198.51.100.3");
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ id: acct.accountId, email_verified: true });
  });

  it(
    "simultaneous requests on one uncached key each read it themselves, all answer in the envelope, and the row is " +
      "then cached",
    async () => {
      // Workers forbid a request to await another request's I/O: a waiter on someone else's pending read can be
      // cancelled with that request and answer a bare 500. So no request may wait on another's read; each reads for
      // itself.
      const acct = await createAccount();
      const reads = await keyRowsRead();
      // Five: the key's own limit is 5 a second, so all of them are admitted.
      const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => account(acct.key, `198.51.100.${20 + i}`)));
      expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
      for (const { body, response } of answers) {
        expect(body.success).toBe(true);
        expect(body.meta.request_id).toBe(response.headers.get("X-Request-Id"));
        expect(response.headers.get("X-Request-Id")).toMatch(/^req_[0-9a-f]{32}$/);
      }
      expect(await keyRowsRead()).toBe(reads + 5);
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // the key's own limit (5 a second) refills
      expect((await account(acct.key, "198.51.100.30")).status).toBe(200);
      expect(await keyRowsRead()).toBe(reads + 5);
    },
  );
});

describe("key cache: a flood of unknown keys from one address", () => {
  it(
    `asks the primary for the first ${UNKNOWN_KEYS.limit} unknown keys, then answers 429 RATE_LIMITED after a ` +
      "replica read only",
    async () => {
      const flooder = "203.0.113.50";
      const { rows: reads, primary } = await keyReads();
      const answers = await inTurn(50, () => account(randomSecret(), flooder));
      expect(answers.slice(0, UNKNOWN_KEYS.limit).map((a) => a.code)).toEqual(
        Array(UNKNOWN_KEYS.limit).fill("UNAUTHENTICATED"),
      );
      const refused = answers.slice(UNKNOWN_KEYS.limit);
      expect(refused.map((a) => `${a.status} ${a.code}`)).toEqual(
        Array(50 - UNKNOWN_KEYS.limit).fill("429 RATE_LIMITED"),
      );
      for (const { retryAfter } of refused) expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(refused[0]!.retryAfter)).toBeLessThanOrEqual(UNKNOWN_KEYS.windowMs / UNKNOWN_KEYS.limit / 1000);
      expect(await primaryKeyReads()).toBe(primary + UNKNOWN_KEYS.limit);
      expect(await keyRowsRead()).toBe(reads + 50);
    },
  );

  it("leaves other addresses alone, keeps valid keys working, refuses guesses without a primary read", async () => {
    const flooder = "203.0.113.51";
    const cached = await createAccount();
    expect((await account(cached.key, "192.0.2.10")).status).toBe(200);
    const uncached = await createAccount();
    const knownUnknown = randomSecret();
    expect((await account(knownUnknown, "192.0.2.10")).status).toBe(401);

    await inTurn(UNKNOWN_KEYS.limit, () => account(randomSecret(), flooder));
    const primary = await primaryKeyReads();
    expect((await account(randomSecret(), flooder)).body.error.code).toBe("RATE_LIMITED");
    expect((await account(cached.key, flooder)).status).toBe(200);
    expect((await account(knownUnknown, flooder)).body.error.code).toBe("UNAUTHENTICATED");
    // A valid key the isolate has not seen is read from the nearby replica and answered, flood or not.
    expect((await account(uncached.key, flooder)).status).toBe(200);
    expect(await primaryKeyReads()).toBe(primary);

    expect((await account(randomSecret(), "203.0.113.52")).body.error.code).toBe("UNAUTHENTICATED");
    expect((await account(uncached.key, "203.0.113.52")).status).toBe(200);
  });

  it("counts IPv6 sources per /64, and one repeated unknown key only once", async () => {
    const repeated = randomSecret();
    const same = await Promise.all(Array.from({ length: 20 }, () => account(repeated, "2001:db8:5:1::1")));
    expect(new Set(same.map((r) => r.body.error.code))).toEqual(new Set(["UNAUTHENTICATED"]));
    const answers = await inTurn(UNKNOWN_KEYS.limit, (i) =>
      account(randomSecret(), `2001:db8:5:1::${(i + 2).toString(16)}`),
    );
    expect(answers.map((a) => a.code)).toEqual([
      ...Array(UNKNOWN_KEYS.limit - 1).fill("UNAUTHENTICATED"),
      "RATE_LIMITED",
    ]);
    expect((await account(randomSecret(), "2001:db8:5:2::1")).body.error.code).toBe("UNAUTHENTICATED");
  });

  it("30 new valid keys at once from one address all answer 200: only keys that turn out unknown count", async () => {
    const acct = await createAccount({ plan: "enterprise" });
    const keys = [acct.key];
    for (let i = 1; i < 30; i++) {
      keys.push(
        (
          await admin<{ key: string }>("POST", `/accounts/${acct.accountId}/keys/secret`, {
            user_id: acct.userId,
            scopes: ["account"],
          })
        ).key,
      );
    }
    const client = "203.0.113.55";
    const answers = await Promise.all(keys.map((key) => account(key, client)));
    expect(answers.map((a) => `${a.status} ${a.body.error?.code ?? ""}`)).toEqual(Array(30).fill("200 "));
    // The valid keys took nothing from the address's budget: it still has all of it for unknown ones.
    const unknown = await inTurn(UNKNOWN_KEYS.limit + 1, () => account(randomSecret(), client));
    expect(unknown.map((a) => a.code)).toEqual([...Array(UNKNOWN_KEYS.limit).fill("UNAUTHENTICATED"), "RATE_LIMITED"]);
  });

  it(
    "unknown keys sent at once each count: past the budget, the address is refused until it has paid them " + "back",
    async () => {
      const flooder = "203.0.113.56";
      const burst = UNKNOWN_KEYS.limit * 2;
      const primary = await primaryKeyReads();
      const answers = await Promise.all(Array.from({ length: burst }, () => account(randomSecret(), flooder)));
      expect(new Set(answers.map((a) => a.body.error.code))).toEqual(new Set(["UNAUTHENTICATED"]));
      expect(await primaryKeyReads()).toBe(primary + burst);
      const next = await account(randomSecret(), flooder);
      expect(next.body.error.code).toBe("RATE_LIMITED");
      // Every miss counted: the wait covers the whole burst beyond the budget, not one interval.
      const interval = UNKNOWN_KEYS.windowMs / UNKNOWN_KEYS.limit / 1000;
      expect(Number(next.response.headers.get("Retry-After"))).toBeGreaterThan((burst - UNKNOWN_KEYS.limit) * interval);
      expect(await primaryKeyReads()).toBe(primary + burst);
    },
  );

  it("applies to publishable keys on the browser endpoints", async () => {
    const visitor = "203.0.113.53";
    const answers = await inTurn(UNKNOWN_KEYS.limit + 2, () =>
      call(
        "/api/v1/email/public",
        json(
          { key: `pk_live_${randomToken(32)}`, email: "a@example.com" },
          { Origin: "http://localhost", "CF-Connecting-IP": visitor },
        ),
      ),
    );
    expect(answers.map((a) => a.code)).toEqual([
      ...Array(UNKNOWN_KEYS.limit).fill("INVALID_PUBLISHABLE_KEY"),
      "RATE_LIMITED",
      "RATE_LIMITED",
    ]);
    expect(answers.at(-1)!.retryAfter).not.toBeNull();
  });

  it("applies to feedback keys in inbound webhook URLs, and a sender's known key keeps working", async () => {
    const sender = "203.0.113.54";
    const acct = await createAccount();
    const { feedback_key } = await admin<{ feedback_key: string }>("POST", `/accounts/${acct.accountId}/feedback-key`);
    const post = (key: string) =>
      call(`/api/v1/email/feedback/sendgrid/${key}`, json([], { "CF-Connecting-IP": sender }));
    expect((await post(feedback_key)).status).toBe(200);
    const answers = await inTurn(UNKNOWN_KEYS.limit + 1, () => post(`fb_${randomToken(40)}`));
    expect(answers.map((a) => a.code)).toEqual([
      ...Array(UNKNOWN_KEYS.limit).fill("INVALID_FEEDBACK_KEY"),
      "RATE_LIMITED",
    ]);
    expect((await post(feedback_key)).status).toBe(200);
  });
});
