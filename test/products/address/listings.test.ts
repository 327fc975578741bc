/**
 * GET /api/v1/address/postcode/{postcode} and GET /api/v1/address/streets (docs/address.md), the operator routes that
 * load the datasets, and what an uninstalled dataset does to answers (never a 500).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { admin, anotherKey, call, createAccount, type TestAccount } from "../../helpers";
import { ADDRESS_DATASETS } from "../../../src/products/address/datasets";
import {
  installAddressData,
  installRows,
  SAMPLE_COVERAGE,
  SAMPLE_VERSION,
  sampleRows,
  versionOf,
} from "../../address-samples";

let acct: TestAccount;
beforeAll(async () => {
  await installAddressData();
  acct = await createAccount({ pack: 20 });
});

const get = async (path: string) =>
  call<Record<string, any>>(path, { headers: { Authorization: `Bearer ${await anotherKey(acct)}` } });

describe("GET /address/postcode/{postcode}", () => {
  it("lists the places of a postcode with region and coordinates; 1 credit, a repeat free", async () => {
    const first = await get("/api/v1/address/postcode/62701?country=US");
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      postcode: "62701",
      country: "US",
      found: true,
      localities: [
        { name: "Springfield", region: "Illinois", latitude: expect.any(Number), longitude: expect.any(Number) },
      ],
      sources: [{ dataset: "us-zip-codes", version: versionOf("us-zip-codes"), coverage: "partial" }],
    });
    expect(first.body.meta).toMatchObject({ credits_used: 1, cache_hit: false });
    const again = await get("/api/v1/address/postcode/62701?country=us");
    expect(again.body.meta).toMatchObject({ credits_used: 0, cache_hit: true });
  });

  it("lists a French postcode's communes without the accepted names it hides (arrondissements)", async () => {
    const { body } = await get("/api/v1/address/postcode/75%20008?country=FR");
    expect(body.data).toMatchObject({
      postcode: "75008",
      found: true,
      localities: [{ name: "Paris", region: "Île-de-France", latitude: null, longitude: null }],
    });
  });

  it("gives UK places from OS Open Names the ONSPD centroid of the postcode", async () => {
    const { body } = await get("/api/v1/address/postcode/sw1a2aa?country=GB");
    expect(body.data.postcode).toBe("SW1A 2AA");
    expect(body.data.localities).toEqual([
      { name: "London", region: "England", latitude: 51.503541, longitude: -0.12767 },
    ]);
    expect(body.data.sources).toEqual([
      { dataset: "uk-onspd", version: SAMPLE_VERSION, coverage: "sample" },
      { dataset: "uk-os-open-names", version: SAMPLE_VERSION, coverage: "sample" },
    ]);
  });

  it("answers found:false free for a malformed code of a covered country", async () => {
    const { status, body } = await get("/api/v1/address/postcode/ABC?country=DE");
    expect([status, body.data.found, body.data.localities, body.meta.credits_used]).toEqual([200, false, [], 0]);
  });

  it(
    "a well-formed postcode outside the installed datasets' coverage (GeoNames' partial ZIPs, the UK sample): 501, " +
      "free",
    async () => {
      for (const path of ["/api/v1/address/postcode/00000?country=US", "/api/v1/address/postcode/NW16XE?country=GB"]) {
        const { status, body } = await get(path);
        expect([status, body.error.code], path).toEqual([501, "ADDRESS_LIST_UNAVAILABLE"]);
      }
    },
  );

  it("found:false, free, for a well-formed postcode a complete file lacks", async () => {
    const { postcodes } = await sampleRows("uk-onspd");
    await installRows("uk-onspd", "2026-11-01", postcodes, [], ADDRESS_DATASETS["uk-onspd"].coverage);
    try {
      const { status, body } = await get("/api/v1/address/postcode/NW16XE?country=GB");
      expect([status, body.data.found, body.data.postcode, body.meta.credits_used]).toEqual([200, false, "NW1 6XE", 0]);
    } finally {
      await installRows("uk-onspd", SAMPLE_VERSION, postcodes, [], SAMPLE_COVERAGE);
    }
  });

  it("answers 501 ADDRESS_LIST_UNAVAILABLE for a country no dataset covers, free", async () => {
    const { status, body } = await get("/api/v1/address/postcode/00184?country=IT");
    expect([status, body.error.code]).toEqual([501, "ADDRESS_LIST_UNAVAILABLE"]);
    expect((await get("/api/v1/address/postcode/00184")).status).toBe(422);
  });
});

describe("GET /address/streets", () => {
  it("lists the streets of a French postcode from the BAN, each once; 1 credit", async () => {
    const { status, body } = await get("/api/v1/address/streets?country=FR&postcode=75008");
    expect(status).toBe(200);
    expect(body.data).toEqual({
      country: "FR",
      postcode: "75008",
      streets: [
        { name: "Avenue des Champs-Élysées", locality: "Paris 8e Arrondissement" },
        { name: "Place de la Concorde", locality: "Paris 8e Arrondissement" },
        { name: "Rue du Faubourg Saint-Honoré", locality: "Paris 8e Arrondissement" },
      ],
      truncated: false,
      sources: [{ dataset: "fr-ban", version: SAMPLE_VERSION, coverage: "sample" }],
    });
    expect(body.meta.credits_used).toBe(1);
  });

  it("lists UK roads of the postcode's district, Welsh and English names alike", async () => {
    const { body } = await get("/api/v1/address/streets?country=GB&postcode=CF10%201BH");
    expect(body.data.streets.map((s: { name: string }) => s.name)).toEqual(["Queen Street", "Stryd y Frenhines"]);
  });

  it("answers 404 ADDRESS_STREETS_NOT_FOUND where no register lists streets, free", async () => {
    for (const path of [
      "/api/v1/address/streets?country=FR&postcode=99999",
      "/api/v1/address/streets?country=US&postcode=62701",
    ]) {
      const { status, body } = await get(path);
      expect([status, body.error.code]).toEqual([404, "ADDRESS_STREETS_NOT_FOUND"]);
    }
  });
});

describe("datasets", () => {
  it("lists every address dataset in /status/data with the version answers cite", async () => {
    const { body } = await get("/api/v1/status/data");
    const names = (body.data.datasets as { name: string; version: string }[]).map((d) => `${d.name}@${d.version}`);
    expect(names).toEqual(
      expect.arrayContaining([
        `us-zip-codes@${versionOf("us-zip-codes")}`,
        `uk-onspd@${SAMPLE_VERSION}`,
        `fr-ban@${SAMPLE_VERSION}`,
      ]),
    );
  });

  it("refuses rows a dataset cannot hold and postcodes not in the country's spelling", async () => {
    const row = {
      country: "US",
      postcode: "62701",
      locality: "X",
      region: null,
      region_code: null,
      subregion: null,
      subregion_code: null,
      latitude: null,
      longitude: null,
      alias: false,
    };
    await expect(admin("POST", "/address-datasets/de-postcodes/rows", { postcodes: [row] })).rejects.toThrow(/422/);
    await expect(
      admin("POST", "/address-datasets/uk-onspd/rows", { postcodes: [{ ...row, country: "GB", postcode: "sw1a2aa" }] }),
    ).rejects.toThrow(/SW1A 2AA/);
    await expect(admin("POST", "/address-datasets/nowhere/rows", { postcodes: [] })).rejects.toThrow(/404/);
  });

  it("answers format_only once a country's dataset is removed, and lists it again after a new import", async () => {
    await installRows("de-postcodes", "2026-01-01-test", []);
    const removed = await admin<{ installed: boolean; done: boolean }>("DELETE", "/address-datasets/de-postcodes");
    expect(removed).toMatchObject({ installed: false, done: true });
    const lookup = await call<Record<string, any>>("/api/v1/address", {
      method: "POST",
      headers: { Authorization: `Bearer ${await anotherKey(acct)}`, "Content-Type": "application/json" },
      body: JSON.stringify({ address: "Unter den Linden 1, 10117 Berlin", country: "DE" }),
    });
    expect(lookup.body.data).toMatchObject({ verification: "format_only", postcode_found: null });
    expect((await get("/api/v1/address/postcode/10117?country=DE")).status).toBe(501);
    await installAddressData();
    expect((await get("/api/v1/address/postcode/10117?country=DE")).body.data.found).toBe(true);
  });
});
