import { describe, expect, it } from "vitest";
import offline from "../docs/offline.md?raw";
import { MAIL_POLICY, ZONE } from "./fixtures/constants";

/** docs/offline.md lists the sample domains of `npm run dev -- --offline`; each must be one the stand-ins serve. */
describe("docs/offline.md", () => {
  const rows = offline.split("\n").filter((line) => line.startsWith("| `"));
  const domains = rows.flatMap((row) => [...row.split("|")[1]!.matchAll(/`([a-z0-9.-]+)`/g)].map((m) => m[1]!));

  it("names only domains the offline DNS zone answers", () => {
    expect(domains.length).toBeGreaterThan(10);
    for (const domain of domains) expect(Object.keys(ZONE), domain).toContain(domain);
  });

  it("lists acme.example's mailboxes as the stand-in SMTP server accepts them", () => {
    const acme = rows.find((row) => row.startsWith("| `acme.example`"))!;
    for (const local of MAIL_POLICY["acme.example"] as string[]) expect(acme).toContain(local);
  });
});
