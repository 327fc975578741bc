// How the sidecar reads each class of RCPT reply (RFC 3463 enhanced codes, RFC 5321 reply codes), against a real SMTP
// server (smtp-server) on loopback: the server refuses each address with the reply named in its local part's entry.
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDohResolver } from "../doh-resolver.mjs";
import { enhancedStatus, rcptOutcome } from "../rcpt-reply.mjs";
import { postProbe, probeBody, startSidecar, startSmtpServer } from "./helpers.mjs";

/** local part -> [reply code, text] the server answers; outcome and enhanced_status the sidecar must report. */
const CASES = [
  ["alice", null, "accepted", null],
  ["unknown", [550, "5.1.1 <unknown@example.test>: Recipient address rejected: User unknown"], "no_mailbox", "5.1.1"],
  ["otheraddr", [550, "5.1.0 Address rejected"], "no_mailbox", "5.1.0"],
  ["badsystem", [550, "5.1.2 Bad destination system address"], "no_mailbox", "5.1.2"],
  ["moved", [550, "5.1.6 Mailbox has moved, no forwarding address"], "no_mailbox", "5.1.6"],
  ["ambiguous", [550, "5.1.4 Destination mailbox address ambiguous"], "unavailable", "5.1.4"],
  ["full", [552, "5.2.2 Mailbox full: over quota"], "mailbox_full", "5.2.2"],
  ["fullnow", [452, "4.2.2 The email account that you tried to reach is over quota"], "mailbox_full", "4.2.2"],
  ["disabled", [550, "5.2.1 The email account that you tried to reach is disabled"], "mailbox_disabled", "5.2.1"],
  ["otherstatus", [550, "5.2.0 Mailbox unavailable"], "unavailable", "5.2.0"],
  ["policy", [550, "5.7.1 Message refused by local policy"], "unavailable", "5.7.1"],
  ["system", [554, "5.3.0 Other mail system problem"], "unavailable", "5.3.0"],
  ["routing", [550, "5.4.1 Recipient address rejected: Access denied"], "unavailable", "5.4.1"],
  ["protocol", [550, "5.5.0 Requested action not taken: mailbox unavailable"], "unavailable", "5.5.0"],
  ["systemnow", [451, "4.3.0 Temporary system failure"], "unavailable", "4.3.0"],
  ["greylist", [450, "4.2.0 Recipient address rejected: Greylisted"], "greylisted", "4.2.0"],
  ["qmail", [554, "Unknown Recipient (#5.1.1)"], "no_mailbox", "5.1.1"],
  ["plain550", [550, "Requested action not taken: mailbox unavailable"], "no_mailbox", null],
  ["plain551", [551, "User not local; please try <other@example.net>"], "no_mailbox", null],
  ["plain553", [553, "Requested action not taken: mailbox name not allowed"], "no_mailbox", null],
  ["plain552", [552, "Requested mail action aborted: exceeded storage allocation"], "mailbox_full", null],
  ["fulltext", [550, "Mailbox full"], "mailbox_full", null],
  ["disabledtext", [550, "This account has been disabled or discontinued"], "mailbox_disabled", null],
  ["plain554", [554, "Transaction failed"], "unavailable", null],
  ["plain450", [450, "Requested mail action not taken: mailbox unavailable"], "greylisted", null],
  ["plain451", [451, "Requested action aborted: local error in processing"], "greylisted", null],
];

/**
 * Refusals of the prober itself (Postfix delays its HELO, sender and client checks to RCPT by default): `blocked`,
 * whatever the code, and never `greylisted`. Each is asked in a probe of its own, since a block stops the probe.
 */
const CLIENT_CASES = [
  ["badsender", [553, "5.1.8 Bad sender's system address"], "5.1.8"],
  ["senderdomain", [450, "4.1.8 <probe@verify.localhost>: Sender address rejected: Domain not found"], "4.1.8"],
  ["helo", [450, "4.7.1 <verify.localhost>: Helo command rejected: Host not found"], "4.7.1"],
  ["nohostname", [450, "4.7.1 Client host rejected: cannot find your hostname, [192.0.2.1]"], "4.7.1"],
  ["rbl", [554, "5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org"], "5.7.1"],
  ["rate", [450, "4.7.1 Error: too many recipients from 192.0.2.1"], "4.7.1"],
  ["errors", [421, "4.7.0 mx.example.test Error: too many errors"], "4.7.0"],
];

const replies = new Map(CASES.map(([local, reply]) => [`${local}@example.test`, reply]));
let smtp;
let sidecar;
let body;

beforeAll(async () => {
  smtp = await startSmtpServer({
    rcpt: (address) => (replies.has(address) ? replies.get(address) : [550, "5.1.1 No such user"]),
  });
  sidecar = await startSidecar({ smtpPort: smtp.port });
  // 27 addresses in one probe: the server keeps them in one session (no recipient limit).
  ({ body } = await postProbe(sidecar.url, probeBody(CASES.map(([local]) => `${local}@example.test`))));
});

afterAll(async () => {
  await sidecar.close();
  await smtp.close();
});

describe("RCPT replies read by class", () => {
  it.each(CASES)("%s: %j -> %s", (local, reply, outcome, status) => {
    const result = body.results.find((r) => r.address === `${local}@example.test`);
    expect(result).toEqual({
      address: `${local}@example.test`,
      outcome,
      smtp_code: reply ? reply[0] : 250,
      smtp_message: reply ? reply[1] : "Accepted",
      enhanced_status: status,
    });
  });

  it("reads the random address's refusal as no catch-all, and sends no DATA", () => {
    expect(body.catch_all).toBe(false);
    expect(smtp.stats.dataCalls).toBe(0);
    // More than 8 refusals: the list goes on in a new session before Postfix's soft error limit (10).
    expect(smtp.stats.sessions).toBe(Math.ceil(body.results.filter((r) => r.smtp_code >= 400).length / 8));
  });
});

describe("refusals of the prober", () => {
  it.each(CLIENT_CASES)("%s: %j -> blocked", async (local, reply, status) => {
    const server = await startSmtpServer({ rcpt: (address) => (address.startsWith(`${local}@`) ? reply : null) });
    const own = await startSidecar({ smtpPort: server.port });
    try {
      const { body: answer } = await postProbe(
        own.url,
        probeBody([`${local}@example.test`], { catch_all_probe: false }),
      );
      expect(answer.results).toEqual([
        {
          address: `${local}@example.test`,
          outcome: "blocked",
          smtp_code: reply[0],
          smtp_message: reply[1],
          enhanced_status: status,
        },
      ]);
    } finally {
      await own.close();
      await server.close();
    }
  });

  it("tells greylisting from a refusal of the client, whatever the code", () => {
    expect(rcptOutcome({ code: 451, message: "4.7.1 Greylisted, try again later" })).toBe("greylisted");
    expect(rcptOutcome({ code: 450, message: "4.2.0 Recipient address rejected: Greylisted" })).toBe("greylisted");
    expect(rcptOutcome({ code: 550, message: "5.4.1 Recipient address rejected: Access denied" })).toBe("unavailable");
  });
});

describe("enhanced status codes", () => {
  it(
    "takes the code at the start of the text or one of the reply's class elsewhere, never part of an IP " + "address",
    () => {
      expect(enhancedStatus({ code: 550, message: "5.1.1 User unknown" })).toBe("5.1.1");
      expect(enhancedStatus({ code: 550, message: "5.1.10 Recipient address has null MX" })).toBe("5.1.10");
      expect(enhancedStatus({ code: 550, message: "Client host [5.1.1.2] rejected" })).toBeNull();
      expect(enhancedStatus({ code: 550, message: "Mail from 5.79.109.48 refused" })).toBeNull();
      expect(enhancedStatus({ code: 450, message: "5.1.1 wrong class" })).toBeNull();
      expect(enhancedStatus({ code: 550, message: "Unknown Recipient (#5.1.1)." })).toBe("5.1.1");
      expect(rcptOutcome({ code: 550, message: "5.1.10 Recipient address has null MX" })).toBe("no_mailbox");
      expect(rcptOutcome({ code: 421, message: "Service not available" })).toBe("unavailable");
      expect(rcptOutcome({ code: 452, message: "Insufficient system storage" })).toBe("unavailable");
    },
  );
});

describe("DoH resolver (development)", () => {
  it("resolves MX host names through a DNS-over-HTTPS JSON endpoint and dials the stand-in server", async () => {
    const asked = [];
    const doh = createServer((req, res) => {
      const url = new URL(req.url, "http://x");
      asked.push(`${url.searchParams.get("type")} ${url.searchParams.get("name")}`);
      const known = url.searchParams.get("name") === "mta5.am0.yahoodns.net";
      const type = url.searchParams.get("type") === "A" ? 1 : 28;
      const Answer =
        known && type === 1 ? [{ name: "mta5.am0.yahoodns.net", type: 1, TTL: 300, data: "127.0.0.1" }] : [];
      res.writeHead(200, { "content-type": "application/dns-json" });
      res.end(JSON.stringify({ Status: known ? 0 : 3, Answer }));
    });
    await new Promise((resolve) => doh.listen(0, "127.0.0.1", resolve));
    const dohSidecar = await startSidecar({
      smtpPort: smtp.port,
      resolver: createDohResolver(`http://127.0.0.1:${doh.address().port}/dns-query`),
    });
    try {
      const { body: answer } = await postProbe(
        dohSidecar.url,
        probeBody(["alice@example.test"], { mx_hosts: [{ host: "mta5.am0.yahoodns.net.", preference: 1 }] }),
      );
      expect(answer).toMatchObject({ mx_host: "mta5.am0.yahoodns.net", results: [{ outcome: "accepted" }] });
      expect(asked).toEqual(expect.arrayContaining(["A mta5.am0.yahoodns.net", "AAAA mta5.am0.yahoodns.net"]));
      expect(dohSidecar.dials).toEqual(["127.0.0.1"]);
    } finally {
      await dohSidecar.close();
      await new Promise((resolve) => doh.close(resolve));
    }
  });
});
