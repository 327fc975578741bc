import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { vi } from "vitest";
import { admin, outputDir } from "./stack";

/** Where the dashboard's screenshots go (test-results/e2e/dashboard/, gitignored, kept after the run). */
export const SHOTS = join(outputDir, "dashboard");
mkdirSync(SHOTS, { recursive: true });

let sequence = 0;
export const newEmail = (label: string) => `${label}-${Date.now()}-${++sequence}@example.com`;

/**
 * A browser context with a screenshot helper numbering the steps; every shot's path is kept for the summary. The
 * previous run's shots of the same prefix are removed first, so the folder shows one run.
 */
export async function newSession(browser: Browser, prefix: string) {
  for (const name of readdirSync(SHOTS)) if (name.startsWith(`${prefix}-`)) rmSync(join(SHOTS, name));
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const shots: string[] = [];
  const shot = async (name: string, on: Page = page) => {
    const path = join(SHOTS, `${prefix}-${String(shots.length + 1).padStart(2, "0")}-${name}.png`);
    await on.screenshot({ path, fullPage: true });
    shots.push(path);
  };
  return { context, page, shots, shot };
}

interface Mail {
  recipient: string;
  kind: string;
  text: string;
  created_at: string;
}

/**
 * The newest message to `to` whose text holds a link matching `pattern` (the operator's `GET /admin/v1/mail`, where the
 * local stack records every message), as a path on this stack: the link's own origin is MAIL_BASE_URL, which names the
 * default dev port rather than the port this run's Worker took. The query (a sign-in link's `next`) is kept.
 */
export async function mailedLink(to: string, pattern: RegExp): Promise<string> {
  const link = await vi.waitFor(
    async () => {
      const { messages } = await admin<{ messages: Mail[] }>("GET", `/mail?recipient=${encodeURIComponent(to)}`);
      const found = messages.map((m) => pattern.exec(m.text)?.[0]).find(Boolean);
      if (!found) throw new Error(`no message to ${to} with a link like ${pattern}`);
      return found;
    },
    { timeout: 15_000, interval: 200 },
  );
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

/** A CSV of `rows` addresses the stand-in mail server accepts for any mailbox (`catchall.example`): each is paid. */
export function paidAddressCsv(rows: number, label: string) {
  const lines = Array.from({ length: rows }, (_, i) => `${label}-${i}@catchall.example`);
  return `email\n${lines.join("\n")}\n`;
}

/** A CSV of `rows` test addresses (docs/test-addresses.md: fixed answers, free), under an `email` header. */
export function testAddressCsv(rows: number) {
  const kinds = ["deliverable", "undeliverable", "role", "disposable", "catch-all", "unverified"];
  const lines = Array.from({ length: rows }, (_, i) => `${kinds[i % kinds.length]}+${i}@service.test`);
  return `email\n${lines.join("\n")}\n`;
}
