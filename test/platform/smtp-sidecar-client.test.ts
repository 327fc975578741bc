// The Worker's client for the SMTP sidecar, inside workerd. The sidecar side of the same wire format is tested in
// workers/smtp-sidecar/test (HMAC-SHA256 over `${timestamp}.${rawBody}`, lowercase hex).
import { describe, expect, it } from "vitest";
import { signSidecarRequest } from "../../src/platform/sidecar-request";
import { probeMailboxes, type SidecarProbeRequest } from "../../src/platform/smtp-sidecar-client";

const secret = "test-sidecar-secret-0123456789";
const request: SidecarProbeRequest = {
  domain: "example.test",
  mxHosts: [{ host: "mx.example.test", preference: 10 }],
  addresses: ["alice@example.test", "bob@example.test"],
  timeoutMs: 2000,
};
const sidecarAnswer = {
  mx_host: "mx.example.test",
  catch_all: false,
  checked_at: "2026-11-22T03:00:00.000Z",
  results: [
    { address: "alice@example.test", outcome: "accepted", smtp_code: 250, smtp_message: "2.1.5 Ok" },
    {
      address: "bob@example.test",
      outcome: "no_mailbox",
      smtp_code: 550,
      smtp_message: "5.1.1 unknown",
      enhanced_status: "5.1.1",
    },
  ],
};
const allUnavailable = request.addresses.map((address) => ({
  address,
  outcome: "provider_unavailable",
  smtpCode: null,
  smtpMessage: null,
  enhancedStatus: null,
}));

function answering(status: number, body: unknown, seen: Request[] = []): typeof fetch {
  return async (input, init) => {
    seen.push(new Request(input, init));
    return Response.json(body, { status });
  };
}

describe("probeMailboxes", () => {
  it("posts the snake_case body signed over `${timestamp}.${rawBody}` and maps the answer", async () => {
    const seen: Request[] = [];
    const result = await probeMailboxes(
      { url: "http://sidecar.test/" },
      secret,
      request,
      answering(200, sidecarAnswer, seen),
    );
    const sent = seen[0]!;
    const rawBody = await sent.text();
    const timestamp = sent.headers.get("x-sidecar-timestamp")!;
    expect(sent.url).toBe("http://sidecar.test/v1/probe");
    expect(JSON.parse(rawBody)).toEqual({
      domain: "example.test",
      mx_hosts: request.mxHosts,
      addresses: request.addresses,
      timeout_ms: 2000,
    });
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(5);
    expect(sent.headers.get("x-sidecar-signature")).toBe(await signSidecarRequest(secret, timestamp, rawBody));
    expect(result).toEqual({
      mxHost: "mx.example.test",
      catchAll: false,
      // A sidecar that says nothing of the random address's answer (an older one): null.
      catchAllAnswer: null,
      checkedAt: "2026-11-22T03:00:00.000Z",
      results: [
        // A sidecar that sends no enhanced_status (an older one) maps to null.
        {
          address: "alice@example.test",
          outcome: "accepted",
          smtpCode: 250,
          smtpMessage: "2.1.5 Ok",
          enhancedStatus: null,
        },
        {
          address: "bob@example.test",
          outcome: "no_mailbox",
          smtpCode: 550,
          smtpMessage: "5.1.1 unknown",
          enhancedStatus: "5.1.1",
        },
      ],
    });
  });

  it("sends the account, and maps the random address's answer and the blocked and deferred outcomes", async () => {
    const seen: Request[] = [];
    const answer = {
      ...sidecarAnswer,
      catch_all: null,
      catch_all_answer: {
        outcome: "greylisted",
        smtp_code: 450,
        smtp_message: "4.2.0 Greylisted",
        enhanced_status: "4.2.0",
      },
      results: [
        {
          ...sidecarAnswer.results[0]!,
          outcome: "blocked",
          smtp_code: 450,
          smtp_message: "4.7.1 Helo command rejected",
        },
        { ...sidecarAnswer.results[1]!, outcome: "deferred", smtp_code: null, smtp_message: "not asked" },
      ],
    };
    const result = await probeMailboxes(
      { url: "http://sidecar.test/" },
      secret,
      { ...request, account: "acct_1" },
      answering(200, answer, seen),
    );
    expect(JSON.parse(await seen[0]!.text())).toMatchObject({ account: "acct_1" });
    expect(result.catchAllAnswer).toEqual({
      outcome: "greylisted",
      smtpCode: 450,
      smtpMessage: "4.2.0 Greylisted",
      enhancedStatus: "4.2.0",
    });
    expect(result.results.map((r) => r.outcome)).toEqual(["blocked", "deferred"]);
  });

  it("signs with HMAC-SHA256 in lowercase hex (a fixed vector)", async () => {
    // printf '1800000000.{}' | openssl dgst -sha256 -hmac key
    expect(await signSidecarRequest("key", "1800000000", "{}")).toBe(
      "7321475872b03ff21bdc2dfd86ea2d99ec29c479fbe4a77aa6acf4509505493f",
    );
  });

  it("uses a Fetcher binding when given one", async () => {
    const seen: Request[] = [];
    const fetcher = { fetch: answering(200, sidecarAnswer, seen) } as unknown as Fetcher;
    const result = await probeMailboxes({ fetcher }, secret, request);
    expect(new URL(seen[0]!.url).pathname).toBe("/v1/probe");
    expect(result.results.map((r) => r.outcome)).toEqual(["accepted", "no_mailbox"]);
  });

  it.each([
    ["a 401", answering(401, { error: "bad signature" })],
    ["a 500", answering(500, { error: "internal error" })],
    ["a malformed body", answering(200, { ...sidecarAnswer, results: [] })],
    [
      "an enhanced_status that is not a string",
      answering(200, { ...sidecarAnswer, results: sidecarAnswer.results.map((r) => ({ ...r, enhanced_status: 5 })) }),
    ],
    [
      "an unknown outcome",
      answering(200, { ...sidecarAnswer, results: sidecarAnswer.results.map((r) => ({ ...r, outcome: "maybe" })) }),
    ],
    [
      "a network error",
      (async () => {
        throw new TypeError("fetch failed");
      }) as typeof fetch,
    ],
  ])("answers provider_unavailable for every address on %s, without throwing", async (_label, fetchImpl) => {
    const result = await probeMailboxes({ url: "http://sidecar.test" }, secret, request, fetchImpl);
    expect(result).toMatchObject({ mxHost: null, catchAll: null, results: allUnavailable });
  });

  it("gives up after timeoutMs + 2000 ms", async () => {
    const never: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const started = Date.now();
    const result = await probeMailboxes({ url: "http://sidecar.test" }, secret, request, never);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3900);
    expect(result.results).toEqual(allUnavailable);
  }, 10_000);
});
