import { beforeAll, describe, expect, it } from "vitest";
import { admin, bearer, call, createAccount } from "../../helpers";
import { installPhoneSamples, ukMobile } from "../../phone-samples";

/**
 * The SMS senders' delivery reports, posted to the Worker as each sender documents them (Twilio status callback,
 * Vonage SMS API delivery receipt, Plivo message status callback, Sinch SMS delivery report callback).
 */
type Inbound = { recorded: number; suppressed: number; ignored: number; confirmed: boolean; invalid: number[] };

beforeAll(() => installPhoneSamples());

/** Six distinct numbers, one per sender event of a test. */
const six = () => [ukMobile(), ukMobile(), ukMobile(), ukMobile(), ukMobile(), ukMobile()] as const;

async function account() {
  const acct = await createAccount({ pack: 3 });
  const { feedback_key } = await admin<{ feedback_key: string }>("POST", `/accounts/${acct.accountId}/feedback-key`);
  return { ...acct, fb: feedback_key };
}

const form = (fields: Record<string, string>) => ({
  type: "application/x-www-form-urlencoded",
  body: new URLSearchParams(fields).toString(),
});
const asJson = (body: unknown) => ({ type: "application/json", body: JSON.stringify(body) });

async function inbound(provider: string, fb: string, payload: { type: string; body: string }) {
  const response = await call<Inbound>(`/api/v1/phone/feedback/${provider}/${fb}`, {
    method: "POST",
    headers: { "Content-Type": payload.type },
    body: payload.body,
  });
  return {
    status: response.status,
    data: response.body.data,
    error: (response.body as { error?: { code: string } }).error,
  };
}

async function suppressed(key: string) {
  const { body } = await call<{ suppressions: { phone: string; reason: string; source: string }[] }>(
    "/api/v1/phone/suppressions",
    bearer(key),
  );
  return body.data.suppressions.map((s) => `${s.phone}:${s.reason}:${s.source}`).sort();
}

async function summary(key: string) {
  return (
    await call<{ outcomes: Record<string, number>; kinds: { failed: Record<string, number> }; ignored: number }>(
      "/api/v1/phone/feedback/summary",
      bearer(key),
    )
  ).body.data;
}

async function balance(accountId: string) {
  return (await admin<{ balance: { total: number } }>("GET", `/accounts/${accountId}`)).balance.total;
}

describe("POST /api/v1/phone/feedback/{provider}/{fb_key}", () => {
  it(
    "answers an unknown provider with 404, an unknown key with 401, and a body not in the sender's format with " +
      "422",
    async () => {
      const acct = await account();
      expect(await inbound("sendgrid", acct.fb, asJson([]))).toMatchObject({
        status: 404,
        error: { code: "UNKNOWN_FEEDBACK_PROVIDER" },
      });
      expect(
        await inbound("twilio", `fb_${"x".repeat(40)}`, form({ MessageStatus: "delivered", To: ukMobile() })),
      ).toMatchObject({ status: 401, error: { code: "INVALID_FEEDBACK_KEY" } });
      expect((await inbound("twilio", acct.fb, asJson({ not: "a callback" }))).status).toBe(422);
      expect((await inbound("vonage", acct.fb, form({ to: "Acme" }))).status).toBe(422);
      expect((await inbound("plivo", acct.fb, { type: "text/plain", body: "hello" })).status).toBe(422);
      expect((await inbound("sinch", acct.fb, asJson([{ type: "recipient_delivery_report_sms" }]))).status).toBe(422);
    },
  );
});

describe("Twilio status callback", () => {
  it(
    "reads MessageStatus and ErrorCode: 30005 permanent, 30003 temporary, 21610 opted out, 30007 rejected; sent " +
      "ignored; nothing billed",
    async () => {
      const acct = await account();
      const [gone, away, stopped, filtered, ok, pending] = six();
      const base = { AccountSid: "ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", From: "+15017122661", ApiVersion: "2010-04-01" };
      const callbacks: Record<string, string>[] = [
        { To: gone, MessageStatus: "undelivered", SmsStatus: "undelivered", ErrorCode: "30005", MessageSid: "SM1" },
        { To: away, MessageStatus: "undelivered", SmsStatus: "undelivered", ErrorCode: "30003", MessageSid: "SM2" },
        { To: stopped, MessageStatus: "failed", SmsStatus: "failed", ErrorCode: "21610", MessageSid: "SM3" },
        { To: filtered, MessageStatus: "undelivered", SmsStatus: "undelivered", ErrorCode: "30007", MessageSid: "SM4" },
        { To: ok, MessageStatus: "delivered", SmsStatus: "delivered", ErrorCode: "", MessageSid: "SM5" },
        { To: pending, MessageStatus: "sent", SmsStatus: "sent", MessageSid: "SM6" },
      ];
      const answers = [];
      for (const fields of callbacks) answers.push(await inbound("twilio", acct.fb, form({ ...base, ...fields })));
      expect(answers.map((a) => [a.status, a.data])).toEqual([
        [200, { recorded: 1, suppressed: 1, ignored: 0, confirmed: false, invalid: [] }],
        ...[1, 2, 3, 4].map(() => [200, { recorded: 1, suppressed: 0, ignored: 0, confirmed: false, invalid: [] }]),
        [200, { recorded: 0, suppressed: 0, ignored: 1, confirmed: false, invalid: [] }],
      ]);
      expect(await suppressed(acct.key)).toEqual([`${gone}:undelivered:feedback`]);
      expect(await summary(acct.key)).toMatchObject({
        outcomes: { delivered: 1, failed: 2, rejected: 1, opted_out: 1 },
        kinds: { failed: { permanent: 1, temporary: 1 } },
        ignored: 1,
      });
      expect(await balance(acct.accountId)).toBe(3);
    },
  );
});

describe("Vonage SMS API delivery receipt", () => {
  it(
    "reads JSON and form receipts with msisdn without +: err-code 3 and 4 permanent, 2 temporary, 9 opted out; " +
      "accepted ignored",
    async () => {
      const acct = await account();
      const [absent, barred, busy, illegal, ok, accepted] = six();
      const receipt = (msisdn: string, status: string, errCode: string) => ({
        msisdn: msisdn.slice(1),
        to: "AcmeInc",
        "network-code": "23420",
        messageId: "0A0000001234567B",
        price: "0.03330000",
        status,
        scts: "2001011400",
        "err-code": errCode,
        "api-key": "abcd1234",
        "message-timestamp": "2020-01-01 12:00:00",
      });
      const posts = [
        asJson(receipt(absent, "failed", "3")),
        form(receipt(barred, "rejected", "4")),
        asJson(receipt(busy, "expired", "2")),
        form(receipt(illegal, "failed", "9")),
        asJson(receipt(ok, "delivered", "0")),
        form(receipt(accepted, "accepted", "0")),
      ];
      const answers = [];
      for (const payload of posts) answers.push((await inbound("vonage", acct.fb, payload)).data);
      expect(answers.map((a) => [a.recorded, a.suppressed, a.ignored])).toEqual([
        [1, 1, 0],
        [1, 1, 0],
        [1, 0, 0],
        [1, 0, 0],
        [1, 0, 0],
        [0, 0, 1],
      ]);
      expect(await suppressed(acct.key)).toEqual(
        [`${absent}:undelivered:feedback`, `${barred}:undelivered:feedback`].sort(),
      );
      expect(await summary(acct.key)).toMatchObject({
        outcomes: { delivered: 1, failed: 3, rejected: 0, opted_out: 1 },
        kinds: { failed: { permanent: 2, temporary: 1 } },
        ignored: 1,
      });
    },
  );
});

describe("Plivo message status callback", () => {
  it("reads Status and ErrorCode: 50 permanent, 20 temporary, 30 rejected; queued and WhatsApp ignored", async () => {
    const acct = await account();
    const [invalid, network, spam, ok, queued, whatsapp] = six();
    const callback = (to: string, status: string, errorCode: string, type = "sms") => ({
      MessageUUID: "2c1a4d64-7e36-11ee-8b9a-0242ac110002",
      To: to.slice(1),
      From: "14155551234",
      Type: type,
      Status: status,
      ErrorCode: errorCode,
      Units: "1",
      TotalRate: "0.0050",
      TotalAmount: "0.0050",
      MCC: "234",
      MNC: "20",
      DeliveryReportTime: "2026-05-04 10:00:00.123456",
    });
    const answers = [];
    for (const fields of [
      callback(invalid, "undelivered", "50"),
      callback(network, "failed", "20"),
      callback(spam, "undelivered", "30"),
      callback(ok, "delivered", ""),
      callback(queued, "queued", ""),
      callback(whatsapp, "undelivered", "50", "whatsapp"),
    ]) {
      answers.push((await inbound("plivo", acct.fb, form(fields))).data);
    }
    expect(answers.map((a) => [a.recorded, a.suppressed, a.ignored])).toEqual([
      [1, 1, 0],
      [1, 0, 0],
      [1, 0, 0],
      [1, 0, 0],
      [0, 0, 1],
      [0, 0, 1],
    ]);
    expect(await suppressed(acct.key)).toEqual([`${invalid}:undelivered:feedback`]);
    expect(await summary(acct.key)).toMatchObject({
      outcomes: { delivered: 1, failed: 2, rejected: 1, opted_out: 0 },
      kinds: { failed: { permanent: 1, temporary: 1 } },
      ignored: 2,
    });
  });
});

describe("Sinch SMS delivery report callback", () => {
  it(
    "reads per-recipient and full reports: Deleted permanent, Failed temporary, Aborted 402 rejected; Dispatched " +
      "and MMS ignored",
    async () => {
      const acct = await account();
      const [deleted, failed, aborted, ok, dispatched, full] = six();
      const report = (recipient: string, status: string, code: number, type = "recipient_delivery_report_sms") => ({
        at: "2026-05-04T10:00:00.000Z",
        batch_id: "01FC66621XXXXX119Z8PMV1QPQ",
        client_reference: "signup-42",
        code,
        operator_status_at: "2026-05-04T09:59:58.000Z",
        recipient: recipient.slice(1),
        status,
        type,
      });
      const answers = [];
      const bodies = [
        report(deleted, "Deleted", 0),
        report(failed, "Failed", 0),
        report(aborted, "Aborted", 402),
        report(ok, "Delivered", 0),
        report(dispatched, "Dispatched", 401),
        report(ok, "Delivered", 0, "recipient_delivery_report_mms"),
        {
          type: "delivery_report_sms",
          batch_id: "01FC66621XXXXX119Z8PMV1QPQ",
          total_message_count: 2,
          statuses: [
            { code: 0, count: 1, recipients: [full.slice(1)], status: "Delivered" },
            { code: 401, count: 1, recipients: [dispatched.slice(1)], status: "Dispatched" },
          ],
        },
      ];
      for (const body of bodies) answers.push((await inbound("sinch", acct.fb, asJson(body))).data);
      expect(answers.map((a) => [a.recorded, a.suppressed, a.ignored])).toEqual([
        [1, 1, 0],
        [1, 0, 0],
        [1, 0, 0],
        [1, 0, 0],
        [0, 0, 1],
        [0, 0, 1],
        [1, 0, 1],
      ]);
      expect(await suppressed(acct.key)).toEqual([`${deleted}:undelivered:feedback`]);
      expect(await summary(acct.key)).toMatchObject({
        outcomes: { delivered: 2, failed: 2, rejected: 1, opted_out: 0 },
        kinds: { failed: { permanent: 1, temporary: 1 } },
        ignored: 3,
      });
    },
  );
});
