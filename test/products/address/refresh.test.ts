/**
 * The scheduled refresh of the address registers (docs/operations.md, "Dataset refresh";
 * src/products/address/refresh.ts): ONSPD from its release zip, OS Open Names from its zip of headerless grid-square
 * files behind the downloads API's redirect, the BAN from its gzip national file, each served by the publishers'
 * stand-in (test/fixtures/publishers.ts), imported into a new generation beside the rows answers read and switched to
 * in one step after its sanity check.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { generatedPostcode } from "../../fixtures/generated-postcodes";
import { installAddressData } from "../../address-samples";
import { admin, call, createAccount, json } from "../../helpers";
import { holdPublishers } from "../../publishers-lease";

holdPublishers();

interface Refresh {
  status: string;
  phase: string | null;
  generation: number | null;
  error: string | null;
  coverage_note?: string | null;
}
interface StatusRow {
  name: string;
  version: string | null;
  records: number | null;
  coverage: { kind: string; countries?: string[] };
  refresh: Refresh | null;
}

const control = (body: Record<string, unknown>) =>
  fetch(`${env.PUBLISHERS_URL}/control`, { method: "POST", body: JSON.stringify(body) });

async function refreshNow(name: string): Promise<Refresh> {
  const started = await admin<{ started: boolean }>("POST", `/dataset-refresh/${name}`);
  expect(started.started).toBe(true);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const view = (
      await admin<{ datasets: { name: string; refresh: Refresh }[] }>("GET", "/dataset-refresh")
    ).datasets.find((d) => d.name === name)!;
    if (view.refresh.status !== "running" && view.refresh.phase === null) return view.refresh;
    if (Date.now() > deadline) throw new Error(`refresh of ${name} did not settle: ${JSON.stringify(view.refresh)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const statusRow = async (name: string) => {
  const acct = await createAccount({ pack: 1 });
  const rows = (
    await call<{ datasets: StatusRow[] }>("/api/v1/status/data", { headers: { Authorization: `Bearer ${acct.key}` } })
  ).body.data.datasets;
  return rows.find((d) => d.name === name)!;
};
/** A count of rows in the address database (REFERENCE_ADDRESS), where a refresh writes them. */
const count = async (sql: string, ...binds: unknown[]) =>
  (await env.REFERENCE_ADDRESS.prepare(sql)
    .bind(...binds)
    .first<{ n: number }>())!.n;
/** Rows of `dataset` in `table` outside the generation answers read (in DB) (the sweep leaves none). */
const otherGenerations = async (table: string, dataset: string) => {
  const row = await env.DB.prepare("SELECT active FROM dataset_generations WHERE name = ?")
    .bind(dataset)
    .first<{ active: number }>();
  return count(
    `SELECT COUNT(*) AS n FROM ${table} WHERE dataset = ?1 AND generation IS NOT ?2`,
    dataset,
    row?.active ?? 0,
  );
};

async function lookup(address: unknown, country: string) {
  const acct = await createAccount({ pack: 5 });
  return call<Record<string, any>>(
    "/api/v1/address",
    json({ address, country }, { Authorization: `Bearer ${acct.key}` }),
  );
}

beforeAll(async () => {
  await installAddressData();
  await control({ address: 120, status: {} });
}, 60_000);

describe("address registers on the scheduled refresh", { timeout: 40_000 }, () => {
  it(
    "ONSPD: the UK CSV of the release zip becomes a generation; its version is the release month; answers read " + "it",
    async () => {
      const refresh = await refreshNow("uk-onspd");
      expect(refresh).toMatchObject({ status: "ok", error: null, generation: 1 });
      const row = await statusRow("uk-onspd");
      // The stand-in's 133 postcodes are far short of a complete directory's floor: partial, and the refresh says why.
      expect(row).toMatchObject({
        version: "2026-11-01",
        coverage: { kind: "partial", countries: ["GB", "GG", "IM", "JE"] },
      });
      expect(row.refresh!.coverage_note).toMatch(/^133 rows, under the 1,500,000 of a complete file \(/);
      expect(row.records).toBe(
        await count("SELECT COUNT(*) AS n FROM address_postcodes WHERE dataset = 'uk-onspd' AND generation = 1"),
      );
      expect(await otherGenerations("address_postcodes", "uk-onspd")).toBe(0);
      const found = await lookup(
        { line1: "1 Any Street", locality: "Manchester", postcode: generatedPostcode(7) },
        "GB",
      );
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expect(found.body.data).toMatchObject({ postcode_found: true });
      // Part of the directory says nothing of a postcode it lacks: not covered (free), never unknown_postcode.
      const missing = await lookup(
        { line1: "1 Any Street", locality: "Manchester", postcode: generatedPostcode(122) },
        "GB",
      );
      expect(missing.body.data).toMatchObject({
        verification: "format_only",
        postcode_found: null,
        reason: "not_covered",
        risk_score: 30,
      });
      expect(missing.body.meta.credits_used).toBe(0);
    },
  );

  it("a new ONSPD edition is switched to in one step and the old generation swept", async () => {
    await control({ address: 125 });
    const refresh = await refreshNow("uk-onspd");
    expect(refresh).toMatchObject({ status: "ok", generation: 2 });
    expect(
      (await lookup({ line1: "1 Any Street", locality: "Manchester", postcode: generatedPostcode(122) }, "GB")).body
        .data,
    ).toMatchObject({ postcode_found: true });
    expect(await otherGenerations("address_postcodes", "uk-onspd")).toBe(0);
  });

  it("an ONSPD file under the sanity bound is refused; answers keep the generation they read", async () => {
    await control({ address: 10 });
    const refresh = await refreshNow("uk-onspd");
    expect(refresh).toMatchObject({ status: "failed", generation: 2 });
    expect(refresh.error).toMatch(/^sanity check failed: \d+ rows, fewer than the 100/);
    expect(
      (await lookup({ line1: "1 Any Street", locality: "Manchester", postcode: generatedPostcode(122) }, "GB")).body
        .data,
    ).toMatchObject({ postcode_found: true });
    await control({ address: 125 });
  });

  it(
    "OS Open Names: every Data/ file of the zip is read (the Doc/ files are not), postcodes and named " + "roads",
    async () => {
      const refresh = await refreshNow("uk-os-open-names");
      expect(refresh).toMatchObject({ status: "ok", error: null });
      const generation = refresh.generation!;
      const row = await statusRow("uk-os-open-names");
      const postcodes = await count(
        "SELECT COUNT(*) AS n FROM address_postcodes WHERE dataset = 'uk-os-open-names' AND generation = ?",
        generation,
      );
      const streets = await count(
        "SELECT COUNT(*) AS n FROM address_streets WHERE dataset = 'uk-os-open-names' AND generation = ?",
        generation,
      );
      expect(row.records).toBe(postcodes + streets);
      // The generated grid square (Data/SJ89.csv, no final line feed) and the sample's square (Data/TQ38.csv) are both
      // in.
      const generated = (i: number) =>
        count(
          "SELECT COUNT(*) AS n FROM address_postcodes WHERE dataset = 'uk-os-open-names' AND generation = ? AND " +
            "postcode = ? AND locality = 'Manchester'",
          generation,
          generatedPostcode(i),
        );
      expect([await generated(0), await generated(124)]).toEqual([1, 1]);
      expect(
        await count(
          "SELECT COUNT(*) AS n FROM address_streets WHERE dataset = 'uk-os-open-names' AND generation = ? AND " +
            "street " +
            "= 'Downing Street'",
          generation,
        ),
      ).toBe(1);
      expect(
        await count(
          "SELECT COUNT(*) AS n FROM address_postcodes WHERE dataset = 'uk-os-open-names' AND postcode LIKE '%NAME%'",
        ),
      ).toBe(0);
      expect(await otherGenerations("address_streets", "uk-os-open-names")).toBe(0);
    },
  );

  it("BAN: the gzip national file keeps house numbers; a refreshed number is located to the premise", async () => {
    const refresh = await refreshNow("fr-ban");
    expect(refresh).toMatchObject({ status: "ok", error: null });
    expect(await statusRow("fr-ban")).toMatchObject({
      version: "2026-11-25",
      coverage: { kind: "partial", countries: ["FR"] },
    });
    const acct = await createAccount({ pack: 5 });
    const { status, body } = await call<Record<string, any>>(
      "/api/v1/address/batch",
      json(
        {
          addresses: [
            "1005 rue du Faubourg Saint-Honoré, 75008 Paris",
            "1300 rue du Faubourg Saint-Honoré, 75008 Paris",
          ],
          country: "FR",
        },
        { Authorization: `Bearer ${acct.key}` },
      ),
    );
    expect(status).toBe(200);
    expect(body.data.results.map((r: any) => [r.data.verification, r.data.precision])).toEqual([
      ["verified", "premise"],
      ["verified", "street"],
    ]);
    expect(body.data.results[0].data.sources).toContainEqual({
      dataset: "fr-ban",
      version: "2026-11-25",
      coverage: "partial",
    });
    expect(await otherGenerations("address_premises", "fr-ban")).toBe(0);
    // The autocomplete index was written in the same generation, switched with it and swept with the rest.
    const suggested = await call<Record<string, any>>(
      `/api/v1/address/autocomplete?${new URLSearchParams({ q: "1005 rue du faubourg", country: "FR", limit: "1" })}`,
      { headers: { Authorization: `Bearer ${acct.key}` } },
    );
    expect(suggested.body.data.suggestions.map((s: any) => [s.line1, s.postcode, s.precision])).toEqual([
      ["1005 Rue du Faubourg Saint-Honoré", "75008", "premise"],
    ]);
    expect(suggested.body.data.sources).toEqual([{ dataset: "fr-ban", version: "2026-11-25", coverage: "partial" }]);
    expect(await otherGenerations("autocomplete_tokens", "fr-ban")).toBe(0);
  });

  it("an operator's import after a refresh writes into the generation answers read", async () => {
    const active = (await env.DB.prepare("SELECT active FROM dataset_generations WHERE name = 'uk-onspd'").first<{
      active: number;
    }>())!.active;
    await admin("POST", "/address-datasets/uk-onspd/rows", {
      postcodes: [
        {
          country: "GB",
          postcode: "M3 9ZZ",
          locality: null,
          region: "England",
          region_code: "E92000001",
          subregion: null,
          subregion_code: null,
          latitude: 53.48,
          longitude: -2.25,
          alias: false,
        },
      ],
    });
    expect(
      await count("SELECT COUNT(*) AS n FROM address_postcodes WHERE postcode = 'M3 9ZZ' AND generation = ?", active),
    ).toBe(1);
  });
});
