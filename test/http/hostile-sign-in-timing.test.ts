import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { app } from "../../src/app";
import { runSelfServiceMail } from "../../src/engines/mail/self-service";
import { Browser, ORIGIN, signedUpOwner, uniqueEmail } from "../dashboard-browser";
import { caughtFor, waitForMail } from "../mail-catcher";

/**
 * Sign-in and sign-up told known addresses from unknown ones by time (first byte 85 ms against 43 ms, found by the
 * second attack): the mail work ran inside the request. Tested by structure, not by the clock: the request makes the
 * same calls to its bindings, in the same order, for a known and an unknown address, and leaves nothing running
 * after its answer; the mail arrives afterwards, from the queue (docs/dashboard.md, "Signing in").
 */
vi.setConfig({ testTimeout: 30_000 });

const WATCHED = new Set(["DB", "LIMITER", "JOBS", "ACCOUNTS", "RESULTS", "DATASETS"]);

/** `base` with its storage bindings recording every method called on them (and on what those calls return). */
function recording(base: Env) {
  const calls: string[] = [];
  // What each wrapper stands for: a wrapped object handed back to a binding (a Durable Object id) goes as itself.
  const targets = new WeakMap<object, object>();
  const unwrap = (arg: unknown) => (arg && typeof arg === "object" ? (targets.get(arg) ?? arg) : arg);
  const wrap = <T extends object>(name: string, target: T): T => {
    const proxy = new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop, t) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(`${name}.${String(prop)}`);
          const result = Reflect.apply(value as (...a: unknown[]) => unknown, t, args.map(unwrap)) as unknown;
          return result && typeof result === "object" && !(result instanceof Promise)
            ? wrap(`${name}.${String(prop)}`, result)
            : result;
        };
      },
    });
    targets.set(proxy, target);
    return proxy;
  };
  const recorded = new Proxy(base, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      return WATCHED.has(String(prop)) && value && typeof value === "object" ? wrap(String(prop), value) : value;
    },
  });
  return { env: recorded, calls };
}

/** Posts the form once through the app with a recording env: the calls before the answer, and those after it. */
async function posted(form: "sign-in" | "sign-up", email: string) {
  const browser = new Browser();
  const csrf = await browser.token(`/dashboard/${form}`);
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const { env: recorded, calls } = recording(env);
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => pending.push(p), passThroughOnException() {}, props: {} };
  const response = await app.fetch(
    new Request(`${ORIGIN}/dashboard/${form}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: ORIGIN,
        Cookie: cookie,
        "CF-Connecting-IP": browser.ip,
      },
      body: new URLSearchParams({ _csrf: csrf, email }).toString(),
    }),
    recorded,
    ctx as unknown as ExecutionContext,
  );
  const page = await response.text();
  const before = [...calls];
  await Promise.all(pending);
  return { status: response.status, page, before, after: calls.slice(before.length) };
}

describe("sign-in and sign-up answer known and unknown addresses alike", () => {
  for (const form of ["sign-in", "sign-up"] as const) {
    it(`${form}: the same calls before the answer, none after it, whether the address is known or not`, async () => {
      const { email: known } = await signedUpOwner(`${form}-known`);
      const knownAnswer = await posted(form, known);
      const unknownAnswer = await posted(form, uniqueEmail(`${form}-unknown`));
      expect(knownAnswer.status).toBe(200);
      expect(unknownAnswer.status).toBe(200);
      expect(knownAnswer.page).toBe(unknownAnswer.page);
      expect(knownAnswer.before).toEqual(unknownAnswer.before);
      expect(knownAnswer.after).toEqual([]);
      expect(unknownAnswer.after).toEqual([]);
    });
  }

  it("the mail arrives afterwards, from the queue", async () => {
    const { email } = await signedUpOwner("mail-later");
    const browser = new Browser();
    expect((await browser.submit("/dashboard/sign-in", "/dashboard/sign-in", { email })).status).toBe(200);
    const mails = await waitForMail(email, 3);
    expect(mails[2]!.subject).toBe("Your sign-in link");
  });

  it("a message delivered twice mails once (sign-up of a new address: one confirmation, no sign-in link)", async () => {
    const email = uniqueEmail("redelivered");
    const message = { type: "self_service_mail", form: "sign_up", email, requestId: `req_${Date.now()}` } as const;
    await runSelfServiceMail(env, message);
    await runSelfServiceMail(env, message);
    const [confirmation] = await waitForMail(email);
    expect(confirmation!.subject).toBe("Confirm your email address");
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // a second mail would have reached the catcher
    expect(await caughtFor(email)).toHaveLength(1);
  });
});
