import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sidecarInstance, sidecarName, sidecarTarget } from "../../src/platform/smtp-sidecar-client";

type Namespace = NonNullable<Parameters<typeof sidecarTarget>[0]["SMTP_SIDECAR"]>;

/** Where mailbox probes go: a URL (dev, tests, a sidecar hosted elsewhere) before the production Container binding. */
describe("sidecarTarget", () => {
  // Any Durable Object namespace shows which object the Container binding would be asked for.
  const namespace = env.LIMITER as unknown as Namespace;

  it("uses SMTP_SIDECAR_URL when it is set, even next to the Container binding", () => {
    expect(sidecarTarget({ SMTP_SIDECAR_URL: "http://127.0.0.1:8025", SMTP_SIDECAR: namespace })).toEqual({
      url: "http://127.0.0.1:8025",
    });
  });

  it("uses one named instance of the Container binding when there is no URL", () => {
    const target = sidecarTarget({ SMTP_SIDECAR_URL: "", SMTP_SIDECAR: namespace });
    expect(
      target &&
        "fetcher" in target &&
        (target.fetcher as DurableObjectStub).id.equals(namespace.idFromName("smtp-sidecar")),
    ).toBe(true);
  });

  it("has no target without either, so every handshake answers provider_unavailable", () => {
    expect(sidecarTarget({ SMTP_SIDECAR_URL: "" })).toBeNull();
  });

  const instanceOf = (target: ReturnType<typeof sidecarTarget>) => {
    const id = (target as { fetcher: DurableObjectStub }).fetcher.id;
    return [0, 1, 2, 3].find((i) => id.equals(namespace.idFromName(sidecarName(i))));
  };

  it("sends each domain's probes to the instance its hash names, the same one every time, whatever the case", () => {
    const scaled = { SMTP_SIDECAR_URL: "", SMTP_SIDECAR: namespace, SMTP_SIDECAR_INSTANCES: "4" };
    for (const domain of ["gmail.com", "example.org", "acme.example", "xn--bcher-kva.example"]) {
      const instance = sidecarInstance(domain, 4);
      expect(instanceOf(sidecarTarget(scaled, domain))).toBe(instance);
      expect(instanceOf(sidecarTarget(scaled, domain.toUpperCase()))).toBe(instance);
    }
    // Without a domain (webhook attempts, mail submissions), and with one instance, instance 0: the name it always had.
    expect(instanceOf(sidecarTarget(scaled))).toBe(0);
    expect(instanceOf(sidecarTarget({ ...scaled, SMTP_SIDECAR_INSTANCES: "1" }, "gmail.com"))).toBe(0);
  });

  it("spreads domains evenly over the instances", () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4_000; i++) counts[sidecarInstance(`domain-${i}.example`, 4)]! += 1;
    for (const n of counts) expect(n).toBeGreaterThan(850);
    expect(sidecarInstance("gmail.com", 0)).toBe(0);
    expect(sidecarInstance("gmail.com", Number.NaN)).toBe(0);
  });
});
