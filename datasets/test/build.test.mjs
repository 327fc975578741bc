import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SNAPSHOT_NAMES, build } from "../build.mjs";
import { VERSION_PATTERN } from "../lib/canonical.mjs";

const dirs = [];
const snapshots = {};
let manifest;

const readJson = async (dir, file) => JSON.parse(await readFile(join(dir, file), "utf8"));
const data = (name) => snapshots[name].data;

function mxProvider(host, patterns) {
  const name = host.toLowerCase().replace(/\.$/, "");
  return patterns.find(({ suffixes }) => suffixes.some((s) => name === s || name.endsWith(`.${s}`)))?.provider ?? null;
}

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const dir = await mkdtemp(join(tmpdir(), "datasets-build-"));
    dirs.push(dir);
    await build({ outDir: dir, log: () => {} });
  }
  manifest = await readJson(dirs[0], "manifest.json");
  for (const name of SNAPSHOT_NAMES) snapshots[name] = await readJson(dirs[0], `${name}.json`);
}, 120_000);

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("snapshot files", () => {
  it("writes every named snapshot with a scheme version and a record count", () => {
    expect(SNAPSHOT_NAMES).toEqual([
      "disposable-domains",
      "free-provider-domains",
      "mx-provider-patterns",
      "provider-rules",
      "provider-username-rules",
      "role-addresses",
      "test-addresses",
      "typo-domains",
    ]);
    for (const name of SNAPSHOT_NAMES) {
      const snapshot = snapshots[name];
      expect(Object.keys(snapshot)).toEqual(["name", "version", "records", "sources", "data"]);
      expect(snapshot.name).toBe(name);
      expect(snapshot.version).toMatch(VERSION_PATTERN);
      const expected = Array.isArray(snapshot.data)
        ? snapshot.data.length
        : name === "typo-domains"
          ? Object.keys(snapshot.data.corrections).length
          : snapshot.data.addresses.length;
      expect(snapshot.records).toBe(expected);
      expect(snapshot.records).toBeGreaterThan(0);
    }
  });

  it("names each source as a package with version and license, or as a dated curated file", () => {
    for (const name of SNAPSHOT_NAMES) {
      for (const source of snapshots[name].sources) {
        if (source.package) {
          expect(source).toEqual({
            package: expect.any(String),
            version: expect.any(String),
            license: expect.any(String),
            published: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          });
        } else {
          expect(source).toEqual({
            file: expect.stringMatching(/^datasets\/sources\/.+\.json$/),
            date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          });
        }
      }
    }
  });

  it("dates a package-fed snapshot by its newest package publish time", () => {
    const { sources, version } = snapshots["disposable-domains"];
    const newest = sources
      .filter((s) => s.package)
      .map((s) => s.published)
      .sort()
      .at(-1);
    expect(version.slice(0, 10)).toBe(newest.replaceAll("-", "."));
  });

  it("lists every snapshot in the manifest", () => {
    expect(manifest.snapshots.map((s) => s.name)).toEqual(SNAPSHOT_NAMES);
    for (const entry of manifest.snapshots) {
      const snapshot = snapshots[entry.name];
      expect(entry).toEqual({
        name: snapshot.name,
        version: snapshot.version,
        records: snapshot.records,
        file: `${entry.name}.json`,
      });
    }
  });

  it("is deterministic: two builds are byte-identical", async () => {
    const files = (await readdir(dirs[0])).sort();
    expect(files).toEqual((await readdir(dirs[1])).sort());
    expect(files).toHaveLength(SNAPSHOT_NAMES.length + 1);
    for (const file of files) {
      expect((await readFile(join(dirs[1], file))).equals(await readFile(join(dirs[0], file))), file).toBe(true);
    }
  });

  it("keeps list data sorted and unique", () => {
    for (const name of ["disposable-domains", "free-provider-domains", "role-addresses"]) {
      const list = data(name);
      expect(list).toEqual([...new Set(list)].sort());
    }
  });
});

describe("disposable and free-provider domains", () => {
  it("never reports relay services as disposable", () => {
    const disposable = new Set(data("disposable-domains"));
    for (const domain of [
      "duck.com",
      "simplelogin.com",
      "mozmail.com",
      "addy.io",
      "anonaddy.me",
      "privaterelay.appleid.com",
      "passmail.net",
    ]) {
      expect(disposable.has(domain), domain).toBe(false);
    }
    expect(data("disposable-domains").some((d) => d.endsWith(".anonaddy.com") || d.endsWith(".33mail.com"))).toBe(
      false,
    );
  });

  it("lists the big free providers as free and never as disposable", () => {
    const disposable = new Set(data("disposable-domains"));
    const free = new Set(data("free-provider-domains"));
    for (const domain of ["gmail.com", "outlook.com", "yahoo.com"]) {
      expect(free.has(domain), domain).toBe(true);
      expect(disposable.has(domain), domain).toBe(false);
    }
    expect(data("free-provider-domains").filter((d) => disposable.has(d))).toEqual([]);
  });

  it("lists well-known throwaway services as disposable", () => {
    const disposable = new Set(data("disposable-domains"));
    for (const domain of ["mailinator.com", "10minutemail.com"]) expect(disposable.has(domain), domain).toBe(true);
  });
});

describe("role addresses", () => {
  it("holds the common role local parts, lower-cased", () => {
    const role = new Set(data("role-addresses"));
    for (const part of ["admin", "info", "support"]) expect(role.has(part), part).toBe(true);
    expect(data("role-addresses").every((p) => p === p.toLowerCase())).toBe(true);
  });
});

describe("typo domains", () => {
  it("maps known misspellings to a popular target", () => {
    const { corrections, targets } = data("typo-domains");
    expect(corrections["gmial.com"]).toBe("gmail.com");
    for (const typo of ["gmail.con", "gmail.co", "hotmail.co", "yahoo.cm"])
      expect(corrections[typo], typo).toBeDefined();
    expect(Object.keys(corrections).length).toBeGreaterThanOrEqual(60);
    const targetSet = new Set(targets);
    for (const target of ["gmail.com", "yahoo.com", "hotmail.com", "outlook.com", "icloud.com", "aol.com"])
      expect(targetSet.has(target), target).toBe(true);
    for (const [typo, meant] of Object.entries(corrections)) {
      expect(targetSet.has(typo), typo).toBe(false);
      expect(targetSet.has(meant), meant).toBe(true);
    }
  });

  it("never lists a typo key as a free provider", () => {
    const free = new Set(data("free-provider-domains"));
    expect(Object.keys(data("typo-domains").corrections).filter((k) => free.has(k))).toEqual([]);
  });
});

describe("provider username rules", () => {
  it("has patterns that compile as RegExps", () => {
    for (const rule of data("provider-username-rules")) {
      for (const key of ["allowed_pattern", "must_start_with", "must_end_with"]) {
        if (rule[key] !== null) expect(() => new RegExp(rule[key]), `${rule.provider}.${key}`).not.toThrow();
      }
      expect(rule.min_length).toBeLessThanOrEqual(rule.max_length);
    }
  });

  it("encodes Gmail's rules", () => {
    const gmail = data("provider-username-rules").find((r) => r.provider === "gmail");
    expect(gmail).toMatchObject({
      min_length: 6,
      max_length: 30,
      plus_tags: true,
      dots_ignored: true,
      canonical_domain: "gmail.com",
    });
    expect(gmail.domains).toEqual(expect.arrayContaining(["gmail.com", "googlemail.com"]));
    expect(new RegExp(gmail.allowed_pattern).test("john.doe")).toBe(true);
    expect(new RegExp(gmail.allowed_pattern).test("john_doe")).toBe(false);
  });

  it("covers the big providers, each domain under one provider", () => {
    const rules = data("provider-username-rules");
    const providers = rules.map((r) => r.provider);
    expect(providers).toEqual(expect.arrayContaining(["gmail", "microsoft", "yahoo", "icloud", "proton"]));
    const domains = rules.flatMap((r) => r.domains);
    expect(new Set(domains).size).toBe(domains.length);
    expect(rules.find((r) => r.provider === "yahoo")).toMatchObject({ hyphen_alias: true, plus_tags: false });
  });
});

describe("mx provider patterns", () => {
  it("resolves MX hosts to providers by suffix, first match wins", () => {
    const patterns = data("mx-provider-patterns");
    expect(mxProvider("aspmx.l.google.com", patterns)).toBe("google");
    expect(mxProvider("alt2.aspmx.l.google.com.", patterns)).toBe("google");
    expect(mxProvider("contoso-com.mail.protection.outlook.com", patterns)).toBe("microsoft");
    expect(mxProvider("mta7.am0.yahoodns.net", patterns)).toBe("yahoo");
    expect(mxProvider("in1-smtp.messagingengine.com", patterns)).toBe("fastmail");
    expect(mxProvider("mx0a-001.pphosted.com", patterns)).toBe("proofpoint");
    expect(mxProvider("inbound-smtp.us-east-1.amazonaws.com", patterns)).toBe("amazon-ses");
    expect(mxProvider("ec2-1-2-3-4.compute-1.amazonaws.com", patterns)).toBeNull();
    expect(mxProvider("mail.example.org", patterns)).toBeNull();
  });
});

describe("provider rules", () => {
  it("keeps the file order, names a provider of mx-provider-patterns for each rule, and normalizes replies", () => {
    const rules = data("provider-rules");
    expect(rules.map((r) => r.id)).toEqual(["yahoo-aol", "microsoft-365", "outlook-com", "icloud", "proton", "yandex"]);
    const patterns = data("mx-provider-patterns");
    // Every rule's MX hosts are also recognised as that provider, so mx_provider and the rule agree.
    for (const rule of rules)
      for (const suffix of rule.mx_suffixes) expect(mxProvider(`mx.${suffix}`, patterns), suffix).toBe(rule.provider);
    expect(rules.filter((r) => r.accepts_all).map((r) => r.id)).toEqual(["yahoo-aol", "icloud", "proton"]);
    expect(rules.find((r) => r.id === "microsoft-365").no_mailbox_replies).toEqual([
      { code: 550, status: "5.4.1", text: "recipient address rejected" },
    ]);
  });

  it("refuses a rule with unknown fields or a reply that is not 5xx", async () => {
    const { providerRules } = await import("../lib/provider-rules.mjs");
    const rule = {
      id: "x",
      provider: "x",
      mx_suffixes: ["x.example"],
      accepts_all: false,
      no_mailbox_replies: [{ code: 450 }],
      notes: "",
    };
    const inputs = (rules) => ({ curated: { providerRules: { content: { rules } } } });
    expect(() => providerRules(inputs([rule]))).toThrow(/must be 5xx/);
    expect(() => providerRules(inputs([{ ...rule, no_mailbox_replies: [], extra: 1 }]))).toThrow(/unknown extra/);
    expect(() =>
      providerRules(
        inputs([
          { ...rule, no_mailbox_replies: [] },
          { ...rule, id: "y", no_mailbox_replies: [] },
        ]),
      ),
    ).toThrow(/under both/);
  });
});

describe("test addresses", () => {
  it("names the sandbox domain and its six local parts", () => {
    const { domain, local_parts: parts, addresses } = data("test-addresses");
    expect(domain).toBe("service.test");
    expect(parts).toEqual(["catch-all", "deliverable", "disposable", "role", "undeliverable", "unverified"]);
    expect(addresses).toEqual(parts.map((p) => `${p}@service.test`));
  });
});
