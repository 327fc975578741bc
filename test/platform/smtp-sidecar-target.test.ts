import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sidecarTarget } from "../../src/platform/smtp-sidecar-client";

type Namespace = NonNullable<Parameters<typeof sidecarTarget>[0]["SMTP_SIDECAR"]>;

/** Where mailbox probes go: a URL (dev, tests, a sidecar hosted elsewhere) before the production Container binding. */
describe("sidecarTarget", () => {
  // Any Durable Object namespace shows which object the Container binding would be asked for.
  const namespace = env.LIMITER as unknown as Namespace;

  it("uses SMTP_SIDECAR_URL when it is set, even next to the Container binding", () => {
    expect(sidecarTarget({ SMTP_SIDECAR_URL: "http://127.0.0.1:8025", SMTP_SIDECAR: namespace })).toEqual({ url: "http://127.0.0.1:8025" });
  });

  it("uses one named instance of the Container binding when there is no URL", () => {
    const target = sidecarTarget({ SMTP_SIDECAR_URL: "", SMTP_SIDECAR: namespace });
    expect(target && "fetcher" in target && (target.fetcher as DurableObjectStub).id.equals(namespace.idFromName("smtp-sidecar"))).toBe(true);
  });

  it("has no target without either, so every handshake answers provider_unavailable", () => {
    expect(sidecarTarget({ SMTP_SIDECAR_URL: "" })).toBeNull();
  });
});
