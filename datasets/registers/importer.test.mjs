import { createServer } from "node:http";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLES, importRegister, loadSamples } from "../../scripts/import-register.mjs";

/** A loopback stand-in for the operator API: records every call, answers like /admin/v1 would. */
let server;
let baseUrl;
let calls = [];
let installed = {};
let deletesLeft = 0;
let failNextRows = 0;
let dir;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "import-register-"));
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      const body = text ? JSON.parse(text) : undefined;
      calls.push({ method: req.method, path: req.url, auth: req.headers.authorization, body });
      const reply = (status, data) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(
          JSON.stringify(
            status < 400
              ? { success: true, data, meta: {} }
              : { success: false, error: { code: "SERVER_ERROR", message: "boom" } },
          ),
        );
      };
      if (req.method === "GET")
        return reply(200, { registers: Object.entries(installed).map(([name, version]) => ({ name, version })) });
      if (req.method === "DELETE") return reply(200, { deleted: 10, done: deletesLeft-- <= 1 });
      if (req.url.endsWith("/rows") && failNextRows > 0) return (failNextRows--, reply(503));
      return reply(200, {});
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const rowCalls = () => calls.filter((c) => c.path.endsWith("/rows"));

describe("importRegister", () => {
  it(
    "posts rows in batches with the operator token, then completes with the file's date and the row " + "count",
    async () => {
      calls = [];
      const file = join(dir, "BasicCompanyData-2026-11-01-part1_7.csv");
      const lines = ["CompanyName, CompanyNumber,RegAddress.AddressLine1,CompanyStatus,DissolutionDate"];
      for (let i = 1; i <= 25; i++) lines.push(`"CO ${i} LTD","${i}","${i} HIGH STREET","Active",""`);
      await writeFile(file, `${lines.join("\r\n")}\r\n`);
      const summary = await importRegister({
        register: "uk-companies-house",
        files: [file],
        baseUrl,
        token: "t0ken",
        batchSize: 10,
        log: () => {},
      });
      expect(summary).toMatchObject({ register: "uk-companies-house", version: "2026-11-01", records: 25, skipped: 0 });
      expect(rowCalls().map((c) => c.body.rows.length)).toEqual([10, 10, 5]);
      expect(
        rowCalls().every((c) => c.path === "/admin/v1/registers/uk-companies-house/rows" && c.auth === "Bearer t0ken"),
      ).toBe(true);
      expect(rowCalls()[0].body.rows[0]).toEqual({
        identifier: "00000001",
        name: "CO 1 LTD",
        status: "active",
        status_detail: "Active",
        country: "GB",
        registration_status: null,
        linked_register: null,
        linked_identifier: null,
      });
      expect(JSON.stringify(calls)).not.toContain("HIGH STREET");
      expect(calls.at(-1)).toMatchObject({
        path: "/admin/v1/registers/uk-companies-house/complete",
        body: { version: "2026-11-01", records: 25 },
      });
      // A real file is recorded as what the register's whole file covers.
      expect(calls.at(-1).body.coverage).toEqual({
        kind: "full",
        countries: ["GB"],
        note: "Companies House's monthly product: every live company (dissolved ones leave it).",
      });
    },
  );

  it("records the coverage the operator names (--coverage partial --countries GB --coverage-note ...)", async () => {
    calls = [];
    const file = join(dir, "BasicCompanyData-2026-11-01-part2_7.csv");
    await writeFile(file, 'CompanyName, CompanyNumber,CompanyStatus,DissolutionDate\r\n"A LTD","1","Active",""\r\n');
    const coverage = { kind: "partial", countries: ["GB"], note: "part 2 of 7" };
    await importRegister({
      register: "uk-companies-house",
      files: [file],
      coverage,
      baseUrl,
      token: "t",
      log: () => {},
    });
    expect(calls.at(-1).body.coverage).toEqual(coverage);
  });

  it("retries a batch the API failed with a 5xx", async () => {
    calls = [];
    failNextRows = 1;
    const file = join(dir, "retry.csv");
    await writeFile(file, "CompanyName, CompanyNumber,CompanyStatus,DissolutionDate\nA,1,Active,\n");
    const summary = await importRegister({
      register: "uk-companies-house",
      files: [file],
      version: "2026-11-01",
      baseUrl,
      token: "t",
      log: () => {},
    });
    expect(summary.records).toBe(1);
    expect(rowCalls()).toHaveLength(2);
  });

  it("needs a version when the file name carries none, and empties the register first with --replace", async () => {
    const file = join(dir, "companies.csv");
    await writeFile(file, "CompanyName, CompanyNumber,CompanyStatus,DissolutionDate\nA,1,Active,\n");
    await expect(
      importRegister({ register: "uk-companies-house", files: [file], baseUrl, token: "t", log: () => {} }),
    ).rejects.toThrow(/--version/);
    await expect(
      importRegister({ register: "fr-sirene", files: [file], baseUrl, token: "t", log: () => {} }),
    ).rejects.toThrow(/unknown register/);
    calls = [];
    deletesLeft = 2;
    await importRegister({
      register: "uk-companies-house",
      files: [file],
      version: "2026-11-01",
      replace: true,
      baseUrl,
      token: "t",
      log: () => {},
    });
    expect(calls.map((c) => c.method)).toEqual(["DELETE", "DELETE", "POST", "POST"]);
  });
});

describe("loadSamples", () => {
  it("loads both samples, leaving a register from a real file or already at its sample alone", async () => {
    calls = [];
    installed = { "gleif-lei": "2026-11-20", "uk-companies-house": "2026-11-01-sample" };
    const log = [];
    await loadSamples({ baseUrl, token: "t", log: (line) => log.push(line) });
    const completed = calls.filter((c) => c.path.endsWith("/complete"));
    expect(completed.map((c) => [c.path, c.body])).toEqual([
      [
        "/admin/v1/registers/uk-companies-house/complete",
        {
          version: SAMPLES[0].version,
          records: 36,
          coverage: {
            kind: "sample",
            countries: ["GB"],
            note: "Synthetic sample rows shipped with the code, not the publisher's file.",
          },
        },
      ],
    ]);
    expect(log.join("\n")).toMatch(/gleif-lei: 2026-11-20 is installed; sample not loaded/);
    calls = [];
    installed = {};
    await loadSamples({ baseUrl, token: "t", log: () => {} });
    expect(calls.filter((c) => c.path.endsWith("/complete")).map((c) => c.path)).toEqual([
      "/admin/v1/registers/uk-companies-house/complete",
      "/admin/v1/registers/gleif-lei/complete",
    ]);
    calls = [];
    installed = Object.fromEntries(SAMPLES.map((s) => [s.register, s.version]));
    await loadSamples({ baseUrl, token: "t", log: () => {} });
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["GET /admin/v1/registers"]);
  });
});
