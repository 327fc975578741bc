import { describe, expect, it } from "vitest";
import { ALERT_LIST_BYTES, alertBodies } from "../../src/engines/monitors/alert-mail";
import type { EntryChanges, RunSummary } from "../../src/engines/monitors/run-summary";
import { mimeComposer } from "../../src/engines/mail/compose";
import { MAX_SUBMIT_BYTES } from "../../workers/smtp-sidecar/submit.mjs";

// mimetext loads on first use (src/engines/mail/compose.ts).
const composeMime = await mimeComposer();

/** A run of `n` entries that each changed two fields, as a 1,000-entry phone or IP monitor can report. */
const run = (n: number) => {
  const changes = Array.from({ length: n }, (_, i) => ({
    identifier: `+4477009${String(i).padStart(5, "0")}`,
    changes: [
      { field: "line_type", from: "mobile", to: "voip" },
      { field: "disposable", from: false, to: true },
    ],
    reason: "feedback",
  })) as unknown as EntryChanges[];
  const summary = { checked: n, changed: n, credits_used: n, stopped_reason: null } as unknown as RunSummary;
  return alertBodies(
    { family: "phone", link: "https://api.test/dashboard/monitors#monitor-phone-1" },
    { id: 1, name: "m" },
    summary,
    changes,
  );
};

describe("a monitor run's alert mail at the monitor's maximum", () => {
  it("lists the entries that fit, counts the rest, and stays within what the relay takes", () => {
    const bodies = run(1_000);
    const listed = bodies.text.split("\n").filter((line) => line.startsWith("* ")).length;
    expect(listed).toBeGreaterThan(100);
    expect(listed).toBeLessThan(1_000);
    expect(bodies.text).toContain(`... and ${1_000 - listed} more changed entries: too many for one mail.`);
    expect(bodies.html).toContain(`... and ${1_000 - listed} more changed entries`);
    expect(new TextEncoder().encode(bodies.text).byteLength).toBeLessThan(ALERT_LIST_BYTES + 4_096);
    const mime = composeMime({ messageId: "m", from: "mail@verify.test", to: "a@example.com", ...bodies });
    expect(new TextEncoder().encode(mime).byteLength).toBeLessThanOrEqual(MAX_SUBMIT_BYTES);
  });

  it("lists every entry of a run that fits, with no count", () => {
    const bodies = run(20);
    expect(bodies.text.split("\n").filter((line) => line.startsWith("* "))).toHaveLength(20);
    expect(bodies.text).not.toContain("more changed");
  });
});
