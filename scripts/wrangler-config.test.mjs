// wrangler.toml: the production environment declares everything local development has (bindings and vars are not
// inherited by an environment), and only production runs the SMTP container, so `wrangler dev` needs no Docker.
import { unstable_readConfig } from "wrangler";
import { describe, expect, it } from "vitest";

const top = unstable_readConfig({ config: "wrangler.toml" });
const production = unstable_readConfig({ config: "wrangler.toml", env: "production" });

/** Every name a Worker sees in `env`, plus the queues it consumes. */
const names = (config) => [
  ...Object.keys(config.vars).map((name) => `var ${name}`),
  ...(config.secrets?.required ?? []).map((name) => `secret ${name}`),
  ...config.d1_databases.map((d) => `d1 ${d.binding} (${d.database_name}, ${d.migrations_dir})`),
  ...config.r2_buckets.map((r) => `r2 ${r.binding}`),
  ...(config.queues.producers ?? []).map((q) => `queue producer ${q.binding} -> ${q.queue}`),
  ...(config.queues.consumers ?? []).map((q) => `queue consumer ${q.queue}`),
  ...config.durable_objects.bindings.map((d) => `durable object ${d.name} (${d.class_name})`),
];

describe("wrangler.toml", () => {
  it("gives production every binding, var and secret that local development has", () => {
    expect(names(production)).toEqual(expect.arrayContaining(names(top)));
  });

  it("declares a migration for every Durable Object class, and production inherits the crons and assets", () => {
    // The classes the migrations leave, in order: a renamed class lives on under its new name only.
    const migrated = production.migrations.reduce((live, m) => {
      for (const name of [...(m.new_sqlite_classes ?? []), ...(m.new_classes ?? [])]) live.add(name);
      for (const { from, to } of m.renamed_classes ?? []) live.delete(from) && live.add(to);
      for (const name of m.deleted_classes ?? []) live.delete(name);
      return live;
    }, new Set());
    for (const { class_name } of [...top.durable_objects.bindings, ...production.durable_objects.bindings])
      expect([...migrated]).toContain(class_name);
    expect(production.triggers.crons).toEqual(top.triggers.crons);
    // Production builds what development builds, then the Worker's separate modules (scripts/build-worker.mjs).
    expect(production.build.command).toBe(`${top.build.command} && node scripts/build-worker.mjs`);
    expect(production).toMatchObject({ main: expect.stringMatching(/dist\/worker\/index\.js$/), no_bundle: true });
    // The refresh's fetch step inflates GLEIF's full golden copy in one invocation (docs/operations.md, "Dataset
    // refresh").
    expect(production.limits?.cpu_ms).toBe(300_000);
    expect(production.assets?.directory).toBe(top.assets?.directory);
  });

  it("runs the SMTP sidecar as a container in production only, bound to its Durable Object", () => {
    expect(top.containers ?? []).toEqual([]);
    const [container] = production.containers;
    expect(container).toMatchObject({
      class_name: "SmtpSidecar",
      image: expect.stringMatching(/workers\/smtp-sidecar\/Dockerfile$/),
    });
    expect(production.durable_objects.bindings).toContainEqual(
      expect.objectContaining({ name: "SMTP_SIDECAR", class_name: "SmtpSidecar" }),
    );
  });

  it("keeps development switches off in production", () => {
    expect(production.vars.WEBHOOKS_ALLOW_LOOPBACK).toBe("false");
    expect(production.vars.SMTP_SIDECAR_URL).toBe("");
  });
});
