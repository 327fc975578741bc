/**
 * Unknown stays unknown (docs/email.md, Scores): facts nobody observed are null in the answer and add no risk points;
 * a domain that is a known misspelling and on the disposable list is one finding, scored once.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { database } from "../../../src/db/client";
import { answer } from "../../../src/products/email/answer";
import type { EmailResult } from "../../../src/products/email/result";
import { factsOf, prepareSpelling } from "../../../src/products/email/spelling";
import { recallMailboxes, shareMailboxes } from "../../../src/products/email/store";
import { cannedAnswer } from "../../../src/products/email/test-addresses";
import { createAccount, lookupEmail } from "../../helpers";

const look = async (email: string) => {
  const acct = await createAccount({ pack: 5 });
  const { status, body } = await lookupEmail<EmailResult>(acct.key, { email });
  expect(status).toBe(200);
  return { data: body.data, credits: body.meta.credits_used };
};

describe("unknown stays unknown", () => {
  it(
    "without a mailbox answer catch_all and mailbox_exists are null (disposable, typo, unverified, username " + "rule)",
    async () => {
      for (const email of [
        "temp@mailinator.com",
        "bob@gmial.com",
        "x@greylist.example",
        "ab@gmail.com",
        "a@dnsfail.example",
      ]) {
        const { data } = await look(email);
        expect({
          email,
          catch_all: data.catch_all,
          mailbox_exists: data.mailbox_exists,
          smtp_checked: data.smtp_checked,
        }).toEqual({
          email,
          catch_all: null,
          mailbox_exists: null,
          smtp_checked: false,
        });
      }
    },
  );

  it(
    "a mailbox answer says catch_all: false for an accepted or refused address, true for a catch-all " + "domain",
    async () => {
      expect((await look("alice@acme.example")).data).toMatchObject({ catch_all: false, mailbox_exists: true });
      expect((await look("nobody@acme.example")).data).toMatchObject({ catch_all: false, mailbox_exists: false });
      expect((await look("z@catchall.example")).data).toMatchObject({ catch_all: true, mailbox_exists: null });
    },
  );

  it("a DMARC question without an answer adds no no_dmarc points: has_dmarc null", async () => {
    const { data, credits } = await look("alice@dmarcfail.example");
    expect(data).toMatchObject({
      deliverable: "deliverable",
      has_spf: true,
      dmarc_policy: null,
      has_dmarc: null,
      risk_score: 0,
    });
    expect(data.risk_components).toEqual({});
    expect(credits).toBe(1);
  });

  it("a DMARC question answered without a record is observed: has_dmarc false, no_dmarc 5", async () => {
    const { data } = await look("x@greylist.example");
    expect(data).toMatchObject({ has_spf: false, dmarc_policy: null, has_dmarc: false });
    expect(data.risk_components).toMatchObject({ no_spf: 5, no_dmarc: 5 });
  });

  it("a resolver that answers nothing adds neither no_spf nor no_dmarc", async () => {
    const { data, credits } = await look("a@dnsfail.example");
    expect(data).toMatchObject({
      reason: "unverified",
      has_spf: null,
      dmarc_policy: null,
      has_dmarc: null,
      mx_provider: null,
    });
    expect(Object.keys(data.risk_components)).toEqual(["unverified"]);
    expect(credits).toBe(0);
  });

  it("a typo domain on the disposable list too scores the typo once, not the disposable list as well", async () => {
    const { data, credits } = await look("bob@gmial.com");
    expect(data).toMatchObject({
      deliverable: "risky",
      reason: "typo_domain",
      disposable: true,
      did_you_mean: "bob@gmail.com",
    });
    // gmial.com publishes MX only: no SPF and no DMARC are observed facts.
    expect(data.risk_components).toEqual({ typo_domain: 60, no_spf: 5, no_dmarc: 5 });
    expect(data.risk_score).toBe(70);
    expect(credits).toBe(1);
  });

  it(
    "an accepted address whose random-address probe gave no clear answer has catch_all null, also once shared and " +
      "recalled",
    async () => {
      const now = Date.now();
      const db = database(env);
      // Without `defer` (queued work) the answers are stored at once.
      await shareMailboxes(
        env,
        new Map([
          ["ann@unsure.example", { outcome: "accepted" as const, checkedAt: now, catchAll: null }],
          ["bo@sure.example", { outcome: "accepted" as const, checkedAt: now, catchAll: false }],
        ]),
      );
      const recalled = await recallMailboxes(db, ["ann@unsure.example", "bo@sure.example"], now);
      expect(recalled.get("ann@unsure.example")).toEqual({ outcome: "accepted", checkedAt: now, catchAll: null });
      expect(recalled.get("bo@sure.example")).toEqual({ outcome: "accepted", checkedAt: now, catchAll: false });
      const facts = factsOf(cannedAnswer("deliverable", "service.test", "x@service.test")!);
      const unsure = answer(
        prepareSpelling("ann", "unsure.example", facts, null),
        "deliverable",
        null,
        recalled.get("ann@unsure.example")!,
      );
      expect(unsure).toMatchObject({
        deliverable: "deliverable",
        mailbox_exists: true,
        smtp_checked: true,
        catch_all: null,
      });
      const sure = answer(
        prepareSpelling("bo", "sure.example", facts, null),
        "deliverable",
        null,
        recalled.get("bo@sure.example")!,
      );
      expect(sure).toMatchObject({ mailbox_exists: true, catch_all: false });
    },
  );
});
