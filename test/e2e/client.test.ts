import { describe, expect, it } from "vitest";
import {
  ApiError,
  createClient,
  webhookVerifier,
  WebhookVerificationError,
  type WebhookFailure,
} from "../../client/src";
import { base, newAccount, receiverUrl } from "./stack";

/** The TypeScript client (client/src) against the running local API. */
describe("typed client", () => {
  it("returns data, meta and the request id of a typed call", async () => {
    const { secretKey } = await newAccount();
    const api = createClient({ baseUrl: base, apiKey: secretKey });
    const answer = await api.post("/api/v1/email", { body: { email: "deliverable@service.test" } });
    expect(answer.status).toBe(200);
    expect(answer.data.deliverable).toBe("deliverable");
    expect(answer.data.sources).toContainEqual({
      dataset: "test-addresses",
      version: expect.any(String),
      coverage: "full",
    });
    expect(answer.meta).toMatchObject({ credits_used: 0, cache_hit: false });
    expect(answer.requestId).toMatch(/^req_[0-9a-f]{32}$/);

    const domain = await api.get("/api/v1/email/domain/{domain}", { path: { domain: "acme.example" } });
    expect(domain.data).toMatchObject({ domain: "acme.example", valid: true, mx_found: true });
  });

  it("throws ApiError with the code, status and request id of the failure envelope", async () => {
    const api = createClient({ baseUrl: base, apiKey: "sk_live_nobody" });
    const error = await api.get("/api/v1/account").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, code: "UNAUTHENTICATED", requestId: expect.stringMatching(/^req_/) });
    expect((error as ApiError).message).toContain((error as ApiError).requestId);
  });

  it("carries the per-field messages of a 422", async () => {
    const { secretKey } = await newAccount();
    const api = createClient({ baseUrl: base, apiKey: secretKey });
    const error = (await api
      .post("/api/v1/email", { body: { email: "x".repeat(300) } })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ status: 422, code: "VALIDATION_FAILED" });
    expect(Object.keys(error.errors ?? {})).toEqual(["email"]);
  });

  it("retries a 429 after the Retry-After the API sent, so a burst over 5 a second all succeeds", async () => {
    const { secretKey } = await newAccount();
    const retries: { delayMs: number; error: unknown }[] = [];
    const api = createClient({
      baseUrl: base,
      apiKey: secretKey,
      maxRetries: 4,
      onRetry: (retry) => retries.push(retry),
    });
    const answers = await Promise.all(Array.from({ length: 10 }, () => api.get("/api/v1/account")));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(retries.length).toBeGreaterThanOrEqual(1); // 10 calls at once, 5 allowed a second
    for (const { delayMs, error } of retries) {
      expect(error).toMatchObject({ status: 429, code: "RATE_LIMITED", retryAfterSeconds: expect.any(Number) });
      expect(delayMs).toBeGreaterThanOrEqual((error as ApiError).retryAfterSeconds! * 1000);
    }
  });

  it("gives up at once on a 429 it should not wait for: a spent daily cap, or retries turned off", async () => {
    const { secretKey } = await newAccount({ daily_credit_cap: 1 });
    const retries: unknown[] = [];
    const api = createClient({ baseUrl: base, apiKey: secretKey, onRetry: (retry) => retries.push(retry) });
    expect((await api.post("/api/v1/email", { body: { email: "alice@acme.example" } })).meta.credits_used).toBe(1);
    const capped = (await api
      .post("/api/v1/email", { body: { email: "bob@acme.example" } })
      .catch((e: unknown) => e)) as ApiError;
    expect(capped).toMatchObject({ status: 429, code: "KEY_SPEND_CAP_REACHED" });
    expect(retries).toEqual([]);

    const impatient = createClient({ baseUrl: base, apiKey: (await newAccount()).secretKey, maxRetries: 0 });
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => impatient.get("/api/v1/account")));
    const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as ApiError] : []));
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]).toMatchObject({
      code: "RATE_LIMITED",
      retryAfterSeconds: expect.any(Number),
      requestId: expect.stringMatching(/^req_/),
    });
  });
});

describe("webhook verification", () => {
  /** A real signed delivery: the API's test webhook to the loopback receiver, as that receiver recorded it. */
  async function delivery() {
    const { secretKey } = await newAccount();
    const path = `/ok/client-${crypto.randomUUID()}`;
    const api = createClient({ baseUrl: base, apiKey: secretKey });
    const { data } = await api.post("/api/v1/webhooks/test", {
      body: { url: `${receiverUrl}${path}`, event: "bulk_email_job.finished" },
    });
    expect(data.delivered).toBe(true);
    const [received] = (await (await fetch(`${receiverUrl}/__log?prefix=${path}`)).json()) as {
      body: string;
      headers: Record<string, string>;
    }[];
    return { secret: data.secret, body: received!.body, header: received!.headers["x-service-signature-v2"]! };
  }

  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => "accepted",
      (e: unknown) => (e instanceof WebhookVerificationError ? e.reason : e),
    ) as Promise<WebhookFailure | "accepted">;

  it("accepts a genuine delivery once and refuses its replay", async () => {
    const { secret, body, header } = await delivery();
    const verify = webhookVerifier({ secret });
    expect(await verify(body, header)).toMatchObject({ test: true, event: "bulk_email_job.finished" });
    expect(await failure(verify(body, header))).toBe("replayed");
  });

  it("refuses a changed body, another secret, a stale or future timestamp and a malformed header", async () => {
    const { secret, body, header } = await delivery();
    const t = Number(/^t=(\d+)/.exec(header)![1]);
    expect(await failure(webhookVerifier({ secret })(body.replace("bulk_email", "bulk_phone"), header))).toBe(
      "bad_signature",
    );
    expect(await failure(webhookVerifier({ secret: `${secret}x` })(body, header))).toBe("bad_signature");
    expect(await failure(webhookVerifier({ secret, now: () => (t + 301) * 1000 })(body, header))).toBe(
      "stale_timestamp",
    );
    expect(await failure(webhookVerifier({ secret, now: () => (t - 301) * 1000 })(body, header))).toBe(
      "stale_timestamp",
    );
    expect(await failure(webhookVerifier({ secret, now: () => (t + 299) * 1000 })(body, header))).toBe("accepted");
    for (const bad of [undefined, "", header.replace("t=", "t=x"), header.replace(",v2=", ";v2="), `${header},v3=00`]) {
      expect(await failure(webhookVerifier({ secret })(body, bad)), String(bad)).toBe("malformed_header");
    }
    expect(await failure(webhookVerifier({ secret })(new TextEncoder().encode(body), header))).toBe("accepted");
  });
});
