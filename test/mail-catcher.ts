import { env } from "cloudflare:test";
import { vi } from "vitest";
import type { CaughtMail } from "./fixtures/catcher";

export type { CaughtMail };

/** What the mail catcher (test/fixtures/catcher.ts) caught for one recipient, parsed by mailparser. */
export async function caughtFor(to: string): Promise<CaughtMail[]> {
  const url = new URL("/messages", env.MAIL_CATCHER_URL);
  url.searchParams.set("to", to);
  return (await (await fetch(url)).json()) as CaughtMail[];
}

/** Waits (up to 10 s) until the catcher holds at least `n` messages for `to`, and returns them. */
export async function waitForMail(to: string, n = 1): Promise<CaughtMail[]> {
  return vi.waitFor(
    async () => {
      const mails = await caughtFor(to);
      if (mails.length < n) throw new Error(`${mails.length} of ${n} messages for ${to} caught`);
      return mails;
    },
    { timeout: 10_000, interval: 50 },
  );
}
