import { env } from "cloudflare:test";
import { afterAll, beforeAll } from "vitest";

/**
 * Holds the publishers' stand-in for the whole file: call it before the file's own hooks. Files that set its editions
 * (`POST /control`) or count what it served run in fresh runtimes beside other files, so they take turns here.
 */
export function holdPublishers() {
  let token = "";
  // Another file may hold it for the length of its run.
  beforeAll(async () => {
    token = await (await fetch(`${env.PUBLISHERS_URL}/lease`, { method: "POST" })).text();
  }, 300_000);
  afterAll(async () => {
    await fetch(`${env.PUBLISHERS_URL}/lease/${token}`, { method: "DELETE" });
  });
}
