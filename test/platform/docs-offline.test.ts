import { describe, expect, it } from "vitest";
import offline from "../../docs/offline.md?raw";
import { MAIL_POLICY, ZONE } from "../fixtures/constants";

/** docs/offline.md lists the sample domains of `npm run dev -- --offline`; each must be one the stand-ins serve. */
describe("docs/offline.md", () => {
  const rows = offline.split("\n").filter((line) => line.startsWith("| `"));
  const domains = rows.flatMap((row) => [...row.split("|")[1]!.matchAll(/`([a-z0-9.-]+)`/g)].map((m) => m[1]!));

  it("names only domains the offline DNS zone answers", () => {
    expect(domains.length).toBeGreaterThan(10);
    for (const domain of domains) expect(Object.keys(ZONE), domain).toContain(domain);
  });

  it("lists each provider sample's MX name as the zone publishes it", () => {
    const providerRows = rows.filter((r) => /^\| `[a-z0-9]+-mx\.example`/.test(r));
    expect(providerRows).toHaveLength(6);
    for (const row of providerRows) {
      const domain = /^\| `([^`]+)`/.exec(row)![1]!;
      const mx = (ZONE as Record<string, { MX?: string[] }>)[domain]!.MX![0]!.split(" ")[1]!.replace(/\.$/, "");
      expect(row, domain).toContain(`MX \`${mx}\``);
    }
  });

  it("lists acme.example's mailboxes as the stand-in SMTP server accepts them", () => {
    const acme = rows.find((row) => row.startsWith("| `acme.example`"))!;
    for (const local of MAIL_POLICY["acme.example"] as string[]) expect(acme).toContain(local);
  });
});
