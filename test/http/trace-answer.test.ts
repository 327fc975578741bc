/**
 * The request's deferred work (src/http/trace-answer.ts): kept until the answer is decided, then `work`, or `ifFailed`
 * when the request ended in an error or the part of it that deferred the work (a tool call) failed. A tool call's
 * work is its own by identity, not by position, so calls whose deferrals interleave fail only their own.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { type Context, Hono } from "hono";
import { describe, expect, it } from "vitest";
import { callDeferrer, deferrerOf, traceAnswer } from "../../src/http/trace-answer";
import type { AppEnv } from "../../src/types";

/** Runs `handler` behind traceAnswer; returns what ran once the request's waitUntil work finished. */
async function ranAfter(handler: (c: Context<AppEnv>, ran: string[]) => Response) {
  const ran: string[] = [];
  const app = new Hono<AppEnv>();
  app.use(traceAnswer());
  app.get("/", (c) => handler(c, ran));
  app.onError((_err, c) => c.text("failed", 500));
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request("http://x/"), env, ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, ran: ran.sort() };
}

const step = (ran: string[], name: string) => async () => void ran.push(name);

describe("deferred work", () => {
  it("a tool call's failure fails its own work alone, however the calls' deferrals interleave", async () => {
    const { status, ran } = await ranAfter((c, ran) => {
      const [a, b] = [callDeferrer(c), callDeferrer(c)];
      a.defer(step(ran, "a1"), step(ran, "a1 failed"));
      b.defer(step(ran, "b1"), step(ran, "b1 failed"));
      a.defer(step(ran, "a2"), step(ran, "a2 failed"));
      b.fail();
      return c.text("ok");
    });
    expect(status).toBe(200);
    expect(ran).toEqual(["a1", "a2", "b1 failed"]);
  });

  it("a request that ends in an error runs every ifFailed; work without one runs anyway", async () => {
    const { status, ran } = await ranAfter((c, ran) => {
      const defer = deferrerOf(c);
      defer(step(ran, "settle"), step(ran, "release"));
      defer(step(ran, "teach"));
      defer(null, step(ran, "refund"));
      throw new Error("after the walk");
    });
    expect(status).toBe(500);
    expect(ran).toEqual(["refund", "release", "teach"]);
  });

  it("a request answered runs each work, and nothing where only ifFailed was given", async () => {
    const { ran } = await ranAfter((c, ran) => {
      const defer = deferrerOf(c);
      defer(step(ran, "settle"), step(ran, "release"));
      defer(null, step(ran, "refund"));
      return c.text("ok");
    });
    expect(ran).toEqual(["settle"]);
  });
});
