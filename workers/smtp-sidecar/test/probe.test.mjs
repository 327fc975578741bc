// The handshake against a real SMTP server (smtp-server) on loopback.
import { describe, expect, it } from "vitest";
import { closedAfterEach, eventually, postProbe, probeBody, startSidecar, startSmtpServer } from "./helpers.mjs";

const cleanups = closedAfterEach();

async function setup(rcpt, smtpOptions = {}) {
  const smtp = await startSmtpServer({ rcpt, ...smtpOptions });
  const sidecar = await startSidecar({ smtpPort: smtp.port, sessions: { idleMs: 200 } });
  cleanups.push(smtp.close, sidecar.close);
  return { smtp, sidecar };
}

const known = new Set(["alice@example.test", "bob@example.test"]);
const onlyKnown = (address) => (known.has(address) ? null : [550, "5.1.1 No such user here"]);
const _byAddress = (body) => Object.fromEntries(body.results.map((result) => [result.address, result]));

describe("probe against a real SMTP server", () => {
  it("reports an existing mailbox as accepted, and catch_all false when the random address is rejected", async () => {
    const { smtp, sidecar } = await setup(onlyKnown);
    const { status, body } = await postProbe(sidecar.url, probeBody(["alice@example.test"]));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      mx_host: "127.0.0.1",
      catch_all: false,
      results: [{ address: "alice@example.test", outcome: "accepted", smtp_code: 250, smtp_message: "Accepted" }],
    });
    expect(Date.parse(body.checked_at)).not.toBeNaN();
    expect(smtp.stats.mailFrom).toEqual(["probe@verify.localhost"]);
    // The random address goes first: whatever cuts the conversation short, the catch-all test is never the one lost.
    expect(smtp.stats.rcpts).toHaveLength(2);
    expect(smtp.stats.rcpts[0]).toMatch(/^[a-z0-9]{16}@example\.test$/);
    expect(body.catch_all_answer).toMatchObject({ outcome: "no_mailbox", smtp_code: 550 });
  });

  it("reports an unknown mailbox (550) as no_mailbox with the server's words", async () => {
    const { sidecar } = await setup(onlyKnown);
    const { body } = await postProbe(sidecar.url, probeBody(["nobody@example.test"]));
    expect(body.results).toEqual([
      {
        address: "nobody@example.test",
        outcome: "no_mailbox",
        smtp_code: 550,
        smtp_message: "5.1.1 No such user here",
        enhanced_status: "5.1.1",
      },
    ]);
    expect(body.catch_all).toBe(false);
  });

  it("reports a domain that accepts everything as catch_all true", async () => {
    const { sidecar } = await setup(() => null);
    const { body } = await postProbe(sidecar.url, probeBody(["anything@example.test"]));
    expect(body.catch_all).toBe(true);
    expect(body.results[0].outcome).toBe("accepted");
  });

  it("reports 451 as greylisted and leaves catch_all unknown when the random address is greylisted too", async () => {
    const { sidecar } = await setup(() => [451, "4.7.1 Greylisted, try again later"]);
    const { body } = await postProbe(sidecar.url, probeBody(["alice@example.test"]));
    expect(body.results[0]).toMatchObject({ outcome: "greylisted", smtp_code: 451 });
    expect(body.catch_all).toBeNull();
  });

  it("checks several addresses in ONE session, in order, and never sends DATA", async () => {
    const { smtp, sidecar } = await setup(onlyKnown);
    const addresses = ["alice@example.test", "nobody@example.test", "bob@example.test", "ghost@example.test"];
    const { body } = await postProbe(sidecar.url, probeBody(addresses));
    expect(body.results.map((result) => result.outcome)).toEqual(["accepted", "no_mailbox", "accepted", "no_mailbox"]);
    expect(smtp.stats.sessions).toBe(1);
    expect(smtp.stats.rcpts.slice(1)).toEqual(addresses);
    expect(smtp.stats.rcpts).toHaveLength(5);
    await eventually(() => smtp.stats.closed === 1);
    expect(smtp.stats.dataCalls).toBe(0);
  });

  it("answers repeated addresses from one RCPT each and keeps the input order", async () => {
    const { smtp, sidecar } = await setup(onlyKnown);
    const { body } = await postProbe(
      sidecar.url,
      probeBody(["bob@example.test", "nobody@example.test", "bob@example.test"]),
    );
    expect(body.results.map((result) => [result.address, result.outcome])).toEqual([
      ["bob@example.test", "accepted"],
      ["nobody@example.test", "no_mailbox"],
      ["bob@example.test", "accepted"],
    ]);
    expect(smtp.stats.rcpts).toHaveLength(3);
  });

  it("starts a new transaction on the same connection at the per-message recipient limit (452)", async () => {
    const { smtp, sidecar } = await setup(onlyKnown, { maxRecipients: 2 });
    const addresses = ["alice@example.test", "nobody@example.test", "bob@example.test", "ghost@example.test"];
    const { body } = await postProbe(sidecar.url, probeBody(addresses));
    expect(body.results.map((result) => result.outcome)).toEqual(["accepted", "no_mailbox", "accepted", "no_mailbox"]);
    expect(body.catch_all).toBe(false);
    // alice and bob fill the transaction (rejected recipients do not count), so ghost is answered 452 4.5.3 by the
    // server before its handler runs; RSET and a new MAIL FROM on the same connection carry ghost
    expect(smtp.stats.sessions).toBe(1);
    expect(smtp.stats.mailFrom).toHaveLength(2);
    expect(smtp.stats.rcpts.slice(1)).toEqual(addresses);
    expect(smtp.stats.dataCalls).toBe(0);
  });

  it("tries MX hosts in ascending preference: the first refuses the connection, the second is used", async () => {
    const { smtp, sidecar } = await setup(onlyKnown);
    const mx_hosts = [
      { host: "127.0.0.1", preference: 20 },
      { host: "127.0.0.2", preference: 10 },
    ];
    const { body } = await postProbe(sidecar.url, probeBody(["alice@example.test"], { mx_hosts }));
    expect(sidecar.dials).toEqual(["127.0.0.2", "127.0.0.1"]);
    expect(body.mx_host).toBe("127.0.0.1");
    expect(body.results[0].outcome).toBe("accepted");
    expect(smtp.stats.sessions).toBe(1);
  });

  it("keeps the given order for MX hosts of equal preference", async () => {
    const { sidecar } = await setup(onlyKnown);
    const mx_hosts = [
      { host: "127.0.0.3", preference: 10 },
      { host: "127.0.0.2", preference: 10 },
      { host: "127.0.0.1", preference: 10 },
    ];
    const { body } = await postProbe(sidecar.url, probeBody(["alice@example.test"], { mx_hosts }));
    expect(sidecar.dials).toEqual(["127.0.0.3", "127.0.0.2", "127.0.0.1"]);
    expect(body.results[0].outcome).toBe("accepted");
  });

  it("resolves MX host names with A and AAAA lookups and dials the resolved address", async () => {
    const smtp = await startSmtpServer({ rcpt: onlyKnown });
    const resolver = {
      resolve4: async (name) => (name === "mx.example.test" ? ["127.0.0.1"] : []),
      resolve6: async () => {
        throw Object.assign(new Error("no AAAA"), { code: "ENODATA" });
      },
    };
    const sidecar = await startSidecar({ smtpPort: smtp.port, resolver });
    cleanups.push(smtp.close, sidecar.close);
    const { body } = await postProbe(
      sidecar.url,
      probeBody(["alice@example.test"], { mx_hosts: [{ host: "mx.example.test.", preference: 0 }] }),
    );
    expect(body.mx_host).toBe("mx.example.test");
    expect(sidecar.dials).toEqual(["127.0.0.1"]);
    expect(body.results[0].outcome).toBe("accepted");
  });
});
