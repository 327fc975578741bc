/**
 * Coverage of the registers (docs/entity.md, "Coverage"): an identifier an installed register does not hold is
 * `unknown_identifier` only when the register was recorded as the publisher's complete file; a sample (what `npm run
 * dev` loads) says nothing of the rest, so a real LEI or company number answers `found: false` with
 * `reason: "register_not_installed"`, free, as the spec bills a register that is not installed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Coverage } from "../../../src/db/coverage";
import type { EntityResult } from "../../../src/products/entity/result";
import { installSample, LEI, SAMPLE_VERSION } from "../../entity-samples";
import { bearer, call, createAccount, json } from "../../helpers";

const SAMPLE: Coverage = {
  kind: "sample",
  note: "Synthetic sample rows shipped with the code, not the publisher's file.",
};
/** Apple Inc.'s LEI and the company number of a real UK company: neither is in the synthetic samples. */
const APPLE = "HWUPKR0MPOU8FGXBT394";
const REAL_NUMBER = "00445790";

const lookup = (key: string, body: unknown) =>
  call<EntityResult>("/api/v1/entity", json(body, { Authorization: `Bearer ${key}` }));

describe("registers installed as samples", () => {
  beforeAll(async () => {
    await installSample("gleif-lei", SAMPLE_VERSION, SAMPLE);
    await installSample("uk-companies-house", SAMPLE_VERSION, { ...SAMPLE, countries: ["GB"] });
  });

  it("/status/data shows each register's coverage as installed", async () => {
    const acct = await createAccount();
    const { body } = await call<{ datasets: { name: string; coverage: Coverage }[] }>(
      "/api/v1/status/data",
      bearer(acct.key),
    );
    expect(body.data.datasets.find((d) => d.name === "gleif-lei")!.coverage).toEqual(SAMPLE);
    expect(body.data.datasets.find((d) => d.name === "uk-companies-house")!.coverage).toEqual({
      ...SAMPLE,
      countries: ["GB"],
    });
  });

  it("a real LEI: found false, register_not_installed, free, citing the sample it was looked up in", async () => {
    const acct = await createAccount({ pack: 5 });
    const { status, body } = await lookup(acct.key, { identifier: APPLE });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      identifier: APPLE,
      found: false,
      reason: "register_not_installed",
      checksum_valid: true,
      name: null,
    });
    expect(body.data.sources).toEqual([{ dataset: "gleif-lei", version: SAMPLE_VERSION, coverage: "sample" }]);
    expect(body.meta).toMatchObject({ credits_used: 0, credits_remaining: 5 });
  });

  it("a UK company number sent as a bare string is read in the UK register, not as a malformed LEI", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await call<Record<string, any>>(
      "/api/v1/entity/batch",
      json({ identifiers: ["09900001", REAL_NUMBER, "12345"] }, { Authorization: `Bearer ${acct.key}` }),
    );
    const rows = body.data.results.map((r: any) => [
      r.data.identifier_type,
      r.data.country,
      r.data.found,
      r.data.reason,
      r.data.checksum_valid,
      r.meta.credits_used,
    ]);
    expect(rows).toEqual([
      ["company_number", "GB", true, "sample_data", null, 1],
      ["company_number", "GB", false, "register_not_installed", null, 0],
      ["company_number", null, false, "invalid_identifier", null, 0],
    ]);
    expect(body.data.results[0].data.name).toBe("SAMPLE WIDGETS LIMITED");
  });

  it("a real UK company number: found false, register_not_installed, free", async () => {
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookup(acct.key, { identifier: REAL_NUMBER, type: "company_number", country: "GB" });
    expect(body.data).toMatchObject({
      identifier: REAL_NUMBER,
      found: false,
      reason: "register_not_installed",
      country: "GB",
    });
    expect(body.meta.credits_used).toBe(0);
  });

  it(
    "an LEI the sample holds is found and billed 1; a malformed one is still unknown_identifier (its check digits " +
      "say so)",
    async () => {
      const acct = await createAccount({ pack: 5 });
      const { body } = await call<Record<string, any>>(
        "/api/v1/entity/batch",
        json({ identifiers: [LEI.widgets, APPLE, "HWUPKR0MPOU8FGXBT349"] }, { Authorization: `Bearer ${acct.key}` }),
      );
      expect(body.data.results.map((r: any) => [r.data.found, r.data.reason, r.meta.credits_used])).toEqual([
        // Found in a synthetic sample: billed as found, and the reason says whose word it is.
        [true, "sample_data", 1],
        [false, "register_not_installed", 0],
        [false, "unknown_identifier", 0],
      ]);
      expect(body.meta).toMatchObject({ requested: 3, found: 1, credits_used: 1, credits_remaining: 4 });
    },
  );
});

describe("registers installed as the publisher's complete file", () => {
  beforeAll(async () => {
    await installSample("gleif-lei", "2026-11-22", { kind: "full" });
    await installSample("uk-companies-house", "2026-11-01", { kind: "full", countries: ["GB"] });
  });

  it("an LEI or company number it does not hold is unknown_identifier, free", async () => {
    const acct = await createAccount({ pack: 5 });
    expect((await lookup(acct.key, { identifier: APPLE })).body.data).toMatchObject({
      found: false,
      reason: "unknown_identifier",
      sources: [{ dataset: "gleif-lei", version: "2026-11-22", coverage: "full" }],
    });
    const number = await lookup(acct.key, { identifier: REAL_NUMBER, type: "company_number", country: "GB" });
    expect(number.body.data).toMatchObject({ found: false, reason: "unknown_identifier" });
    expect(number.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 5 });
  });

  it("a file recorded as covering other countries only is no negative for this one", async () => {
    await installSample("uk-companies-house", "2026-11-01", { kind: "full", countries: ["JE"] });
    const acct = await createAccount({ pack: 5 });
    const { body } = await lookup(acct.key, { identifier: REAL_NUMBER, type: "company_number", country: "GB" });
    expect(body.data).toMatchObject({ found: false, reason: "register_not_installed" });
  });
});
