import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, bearer, call, createAccount } from "../../helpers";
import { receivedAt } from "../../webhook-receiver";

/**
 * The senders' inbound webhooks, posted to the Worker exactly as each sender documents its payload (SendGrid Event
 * Webhook, Mailgun webhooks, Postmark webhooks, Amazon SES notifications through SNS).
 */
type Inbound = { recorded: number; suppressed: number; ignored: number; confirmed: boolean; invalid: number[] };
const rand = () => crypto.randomUUID().slice(0, 8);

async function account(verified = true) {
  const acct = await createAccount({ verified });
  const { feedback_key } = await admin<{ feedback_key: string }>("POST", `/accounts/${acct.accountId}/feedback-key`);
  return { ...acct, fb: feedback_key };
}

async function inbound(provider: string, fb: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await SELF.fetch(`https://api.test/api/v1/email/feedback/${provider}/${fb}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { success: boolean; data: Inbound; error: { code: string } },
  };
}

async function suppressed(key: string) {
  const { body } = await call<{ suppressions: { email: string; reason: string; source: string }[] }>(
    "/api/v1/email/suppressions",
    bearer(key),
  );
  return body.data.suppressions.map((s) => `${s.email}:${s.reason}`).sort();
}

async function outcomes(key: string) {
  return (
    await call<{ outcomes: Record<string, number>; kinds: { bounced: Record<string, number> }; ignored: number }>(
      "/api/v1/email/feedback/summary",
      bearer(key),
    )
  ).body.data;
}

describe("POST /api/v1/email/feedback/{provider}/{fb_key}", () => {
  it("answers an unsupported provider with 404 UNKNOWN_FEEDBACK_PROVIDER before looking at the key", async () => {
    const { status, body } = await inbound("sparkpost", "fb_whatever", []);
    expect(status).toBe(404);
    expect(body.error.code).toBe("UNKNOWN_FEEDBACK_PROVIDER");
    expect((await inbound("x".repeat(200), "fb_whatever", [])).body.error.code).toBe("UNKNOWN_FEEDBACK_PROVIDER");
    expect((await inbound("sendgrid", `fb_${"y".repeat(300)}`, [])).body.error.code).toBe("INVALID_FEEDBACK_KEY");
  });

  it("answers an unknown key, and a rotated one at once, with 401 INVALID_FEEDBACK_KEY", async () => {
    expect((await inbound("sendgrid", `fb_${"x".repeat(40)}`, [])).body.error.code).toBe("INVALID_FEEDBACK_KEY");
    const acct = await account();
    expect((await inbound("sendgrid", acct.fb, [])).status).toBe(200);
    await admin("POST", `/accounts/${acct.accountId}/feedback-key`);
    const rotated = await inbound("sendgrid", acct.fb, []);
    expect(rotated.status).toBe(401);
    expect(rotated.body.error.code).toBe("INVALID_FEEDBACK_KEY");
  });

  it("works for an account that has not confirmed its email address", async () => {
    const acct = await account(false);
    const { status, body } = await inbound("postmark", acct.fb, {
      RecordType: "Delivery",
      Recipient: "a@acme.example",
      DeliveredAt: "2026-05-04T10:00:00Z",
    });
    expect(status).toBe(200);
    expect(body.data.recorded).toBe(1);
  });

  it("answers a body that is not the sender's format with 422", async () => {
    const acct = await account();
    expect((await inbound("sendgrid", acct.fb, { not: "an array" })).status).toBe(422);
    expect((await inbound("mailgun", acct.fb, "not json")).status).toBe(422);
  });
});

describe("SendGrid Event Webhook", () => {
  it(
    "reads a batch: delivered, bounce (hard), blocked (soft), spamreport; processed, deferred, open and click " +
      "ignored and counted",
    async () => {
      const acct = await account();
      const t = rand();
      const base = {
        timestamp: 1_777_888_999,
        "smtp-id": "<14c5d75ce93.dfd.64b469@ismtpd-555>",
        sg_event_id: "sg_event_id",
        sg_message_id: "sg_message_id",
      };
      const body = [
        { ...base, email: `p-${t}@acme.example`, event: "processed", category: "cat facts" },
        { ...base, email: `d-${t}@acme.example`, event: "delivered", response: "250 OK" },
        {
          ...base,
          email: `h-${t}@acme.example`,
          event: "bounce",
          type: "bounce",
          status: "5.0.0",
          reason: "500 unknown recipient",
          bounce_classification: "Invalid Address",
        },
        {
          ...base,
          email: `b-${t}@acme.example`,
          event: "bounce",
          type: "blocked",
          status: "4.0.0",
          reason: "blocked",
          bounce_classification: "Reputation",
        },
        { ...base, email: `q-${t}@acme.example`, event: "deferred", attempt: "5", response: "400 try again later" },
        { ...base, email: `s-${t}@acme.example`, event: "spamreport" },
        { ...base, email: `o-${t}@acme.example`, event: "open", useragent: "Mozilla/4.0", ip: "255.255.255.255" },
        { ...base, email: `c-${t}@acme.example`, event: "click", url: "http://www.sendgrid.com/" },
      ];
      const { status, body: answer } = await inbound("sendgrid", acct.fb, body);
      expect(status).toBe(200);
      expect(answer.data).toEqual({ recorded: 4, suppressed: 2, ignored: 4, confirmed: false, invalid: [] });
      expect(await suppressed(acct.key)).toEqual([`h-${t}@acme.example:bounced`, `s-${t}@acme.example:complained`]);
      expect(await outcomes(acct.key)).toMatchObject({
        outcomes: { delivered: 1, bounced: 2, complained: 1 },
        kinds: { bounced: { hard: 1, soft: 1 } },
        ignored: 4,
      });
    },
  );
});

describe("Mailgun webhooks", () => {
  const signature = {
    timestamp: "1529006854",
    token: "a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0",
    signature: "d2271d12299f6592d9d44cd9d250f0704e4674c30d79d07c47a66f95ce71cf55",
  };
  const eventData = (event: Record<string, unknown>) => ({
    signature,
    "event-data": { id: "CPgfbmQMTCKtHW6uIWtuVe", timestamp: 1521472262.908181, "log-level": "info", ...event },
  });

  it(
    "reads delivered, failed permanent (hard), failed temporary (soft) and complained; opened is " + "ignored",
    async () => {
      const acct = await account();
      const t = rand();
      const posts = [
        eventData({
          event: "delivered",
          recipient: `d-${t}@acme.example`,
          "delivery-status": { code: 250, message: "OK" },
        }),
        eventData({
          event: "failed",
          severity: "permanent",
          reason: "bounce",
          recipient: `h-${t}@acme.example`,
          "delivery-status": { code: 550, message: "No such user", description: "" },
        }),
        eventData({
          event: "failed",
          severity: "temporary",
          reason: "generic",
          recipient: `t-${t}@acme.example`,
          "delivery-status": { code: 452, message: "mailbox full" },
        }),
        eventData({ event: "complained", recipient: `c-${t}@acme.example` }),
        eventData({ event: "opened", recipient: `o-${t}@acme.example`, "client-info": { "client-type": "browser" } }),
      ];
      const answers = [];
      for (const body of posts) answers.push((await inbound("mailgun", acct.fb, body)).body.data);
      expect(answers.map((a) => [a.recorded, a.suppressed, a.ignored])).toEqual([
        [1, 0, 0],
        [1, 1, 0],
        [1, 0, 0],
        [1, 1, 0],
        [0, 0, 1],
      ]);
      expect(await suppressed(acct.key)).toEqual([`c-${t}@acme.example:complained`, `h-${t}@acme.example:bounced`]);
      expect(await outcomes(acct.key)).toMatchObject({
        outcomes: { delivered: 1, bounced: 2, complained: 1 },
        kinds: { bounced: { hard: 1, soft: 1 } },
        ignored: 1,
      });
    },
  );
});

describe("Postmark webhooks", () => {
  it(
    "reads Delivery, Bounce by Type (HardBounce hard, SoftBounce soft, AutoResponder ignored) and SpamComplaint; " +
      "Open is ignored",
    async () => {
      const acct = await account();
      const t = rand();
      const bounce = (type: string, typeCode: number, email: string) => ({
        // Postmark's documented example id (an int64 past 2^53): JSON carries it rounded, as a receiver's parser would.
        RecordType: "Bounce",
        MessageStream: "outbound",
        // biome-ignore lint/correctness/noPrecisionLoss: the value is Postmark's own sample
        ID: 4323372036854775807,
        Type: type,
        TypeCode: typeCode,
        Name: type,
        Tag: "Test",
        MessageID: "883953f4-6105-42a2-a16a-77a8eac79483",
        ServerID: 23,
        Description: "The server was unable to deliver your email",
        Details: "Test bounce details",
        Email: email,
        From: "sender@example.com",
        BouncedAt: "2019-11-05T16:33:54.9070259Z",
        Inactive: true,
        CanActivate: true,
        Subject: "Test subject",
      });
      const posts = [
        {
          RecordType: "Delivery",
          ServerID: 23,
          MessageStream: "outbound",
          MessageID: "00000000-0000-0000-0000-000000000000",
          Recipient: `d-${t}@acme.example`,
          Tag: "welcome-email",
          DeliveredAt: "2019-11-05T16:33:54.9070259Z",
          Details: "Test delivery webhook details",
          Metadata: { a_key: "a_value" },
        },
        bounce("HardBounce", 1, `h-${t}@acme.example`),
        bounce("SoftBounce", 4096, `s-${t}@acme.example`),
        bounce("AutoResponder", 64, `a-${t}@acme.example`),
        { ...bounce("SpamComplaint", 512, `c-${t}@acme.example`), RecordType: "SpamComplaint" },
        {
          RecordType: "Open",
          MessageStream: "outbound",
          FirstOpen: true,
          Recipient: `o-${t}@acme.example`,
          MessageID: "883953f4-6105-42a2-a16a-77a8eac79483",
          ReceivedAt: "2019-11-05T16:33:54.9070259Z",
        },
      ];
      const answers = [];
      for (const body of posts) answers.push((await inbound("postmark", acct.fb, body)).body.data);
      expect(answers.map((a) => [a.recorded, a.suppressed, a.ignored])).toEqual([
        [1, 0, 0],
        [1, 1, 0],
        [1, 0, 0],
        [0, 0, 1],
        [1, 1, 0],
        [0, 0, 1],
      ]);
      expect(await suppressed(acct.key)).toEqual([`c-${t}@acme.example:complained`, `h-${t}@acme.example:bounced`]);
    },
  );
});

describe("Amazon SES through SNS", () => {
  const base = {
    MessageId: "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
    TopicArn: "arn:aws:sns:us-west-2:123456789012:MyTopic",
    Timestamp: "2012-05-02T00:54:06.655Z",
  };
  /** The string SNS signs (its documentation: "Verifying the signatures of Amazon SNS messages"). */
  const stringToSign = (m: Record<string, unknown>) => {
    const fields =
      m.Type === "Notification"
        ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
        : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
    return fields
      .filter((f) => m[f] !== undefined)
      .map((f) => `${f}\n${m[f]}\n`)
      .join("");
  };
  /** Signs a message as SNS does, with the fixture certificate's key: version 1 SHA1withRSA, 2 SHA256withRSA. */
  async function signed(message: Record<string, unknown>, version: "1" | "2" = "1", certUrl = env.SNS_CERT_URL) {
    const der = Uint8Array.from(atob(env.SNS_SIGNING_KEY), (c) => c.charCodeAt(0));
    const key = await crypto.subtle.importKey(
      "pkcs8",
      der,
      { name: "RSASSA-PKCS1-v1_5", hash: version === "1" ? "SHA-1" : "SHA-256" },
      false,
      ["sign"],
    );
    const signature = await crypto.subtle.sign(
      "RSASSA-PKCS1-v1_5",
      key,
      new TextEncoder().encode(stringToSign(message)),
    );
    return {
      ...message,
      SignatureVersion: version,
      Signature: btoa(String.fromCharCode(...new Uint8Array(signature))),
      SigningCertURL: certUrl,
    };
  }
  const notification = (message: unknown, version: "1" | "2" = "1") =>
    signed(
      {
        Type: "Notification",
        ...base,
        Message: JSON.stringify(message),
        UnsubscribeURL: "https://sns.us-west-2.amazonaws.com/?Action=Unsubscribe",
      },
      version,
    );
  const confirmation = (type: string, subscribeUrl: string) =>
    signed({
      Type: type,
      ...base,
      Token: "2336412f37",
      Message: "You have chosen to subscribe to the topic.",
      SubscribeURL: subscribeUrl,
    });
  const mail = {
    timestamp: "2016-01-27T14:59:38.237Z",
    source: "sender@example.com",
    messageId: "0000014644fe5ef6-9a483358-9170-4cb4-a269-f5dcdf415321-000000",
    destination: ["a@acme.example"],
  };
  const sns = (type: string) => ({ "x-amz-sns-message-type": type, "Content-Type": "text/plain; charset=UTF-8" });
  const delivery = (email: string) => ({
    notificationType: "Delivery",
    delivery: { timestamp: "2016-01-27T14:59:38.237Z", recipients: [email], smtpResponse: "250 ok" },
    mail,
  });

  it("confirms a subscription by fetching its SubscribeURL", async () => {
    const acct = await account();
    const path = `/ok/sns-${rand()}`;
    const body = await confirmation(
      "SubscriptionConfirmation",
      `${env.RECEIVER_URL}${path}?Action=ConfirmSubscription` +
        "&TopicArn=arn:aws:sns:us-west-2:123456789012:MyTopic&Token=2336412f37",
    );
    const { status, body: answer } = await inbound("ses", acct.fb, body, sns("SubscriptionConfirmation"));
    expect(status).toBe(200);
    expect(answer.data).toMatchObject({ confirmed: true, recorded: 0 });
    expect(await receivedAt(path)).toHaveLength(1);
  });

  it("refuses a SubscribeURL that is not an Amazon SNS https URL (422) and fetches nothing", async () => {
    const acct = await account();
    for (const url of [
      "https://evil.example/?Action=ConfirmSubscription",
      "http://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription",
      "https://sns.us-west-2.amazonaws.com.evil.example/",
    ]) {
      const { status } = await inbound(
        "ses",
        acct.fb,
        await confirmation("SubscriptionConfirmation", url),
        sns("SubscriptionConfirmation"),
      );
      expect(status, url).toBe(422);
    }
  });

  it("acts only on messages whose signature verifies with an SNS certificate (versions 1 and 2)", async () => {
    const acct = await account();
    const t = rand();
    const good = await inbound(
      "ses",
      acct.fb,
      await notification(delivery(`v2-${t}@acme.example`), "2"),
      sns("Notification"),
    );
    expect(good.body.data).toMatchObject({ recorded: 1 });
    const withSubject = await signed({
      Type: "Notification",
      ...base,
      Subject: "Amazon SES Email Event Notification",
      Message: JSON.stringify(delivery(`s-${t}@acme.example`)),
    });
    expect((await inbound("ses", acct.fb, withSubject, sns("Notification"))).body.data).toMatchObject({ recorded: 1 });
    const tampered = {
      ...(await notification(delivery(`a-${t}@acme.example`))),
      Message: JSON.stringify(delivery(`forged-${t}@acme.example`)),
    };
    const forged = await inbound("ses", acct.fb, tampered, sns("Notification"));
    expect(forged.status).toBe(422);
    const elsewhere = await signed(
      { Type: "Notification", ...base, Message: JSON.stringify(delivery(`e-${t}@acme.example`)) },
      "1",
      "https://certs.evil.example/SimpleNotificationService-x.pem",
    );
    expect((await inbound("ses", acct.fb, elsewhere, sns("Notification"))).status).toBe(422);
    const unsigned = { Type: "Notification", ...base, Message: JSON.stringify(delivery(`u-${t}@acme.example`)) };
    expect((await inbound("ses", acct.fb, unsigned, sns("Notification"))).status).toBe(422);
    expect((await outcomes(acct.key)).outcomes.delivered).toBe(2);
  });

  it(
    "reads Bounce (one event per recipient; Permanent hard, Transient soft), Complaint and Delivery; other kinds " +
      "are ignored",
    async () => {
      const acct = await account();
      const t = rand();
      const posts = await Promise.all([
        notification({
          notificationType: "Bounce",
          bounce: {
            bounceType: "Permanent",
            bounceSubType: "General",
            timestamp: "2016-01-27T14:59:38.237Z",
            feedbackId: "00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa0680-000000",
            reportingMTA: "dsn; a27-23.smtp-out.us-west-2.amazonses.com",
            bouncedRecipients: [
              {
                emailAddress: `h1-${t}@acme.example`,
                action: "failed",
                status: "5.1.1",
                diagnosticCode: "smtp; 550 5.1.1 user unknown",
              },
              {
                emailAddress: `h2-${t}@acme.example`,
                action: "failed",
                status: "5.1.1",
                diagnosticCode: "smtp; 550 5.1.1 user unknown",
              },
            ],
          },
          mail,
        }),
        notification({
          notificationType: "Bounce",
          bounce: {
            bounceType: "Transient",
            bounceSubType: "MailboxFull",
            timestamp: "2016-01-27T14:59:38.237Z",
            bouncedRecipients: [{ emailAddress: `t-${t}@acme.example` }],
          },
          mail,
        }),
        notification({
          notificationType: "Complaint",
          complaint: {
            complainedRecipients: [{ emailAddress: `c-${t}@acme.example` }],
            timestamp: "2016-01-27T14:59:38.237Z",
            feedbackId: "0000013786031775-fea503bc",
            complaintFeedbackType: "abuse",
          },
          mail,
        }),
        notification({
          notificationType: "Delivery",
          delivery: {
            timestamp: "2016-01-27T14:59:38.237Z",
            processingTimeMillis: 546,
            recipients: [`d-${t}@acme.example`],
            smtpResponse: "250 ok:  Message 64111812 accepted",
            reportingMTA: "a8-70.smtp-out.amazonses.com",
          },
          mail,
        }),
        notification({ eventType: "Send", send: {}, mail }),
      ]);
      const answers = [];
      for (const body of posts) answers.push((await inbound("ses", acct.fb, body, sns("Notification"))).body.data);
      expect(answers.map((a) => [a.recorded, a.suppressed, a.ignored])).toEqual([
        [2, 2, 0],
        [1, 0, 0],
        [1, 1, 0],
        [1, 0, 0],
        [0, 0, 1],
      ]);
      expect(await suppressed(acct.key)).toEqual([
        `c-${t}@acme.example:complained`,
        `h1-${t}@acme.example:bounced`,
        `h2-${t}@acme.example:bounced`,
      ]);
    },
  );

  it(
    "reads event publishing (eventType) with raw message delivery, and an UnsubscribeConfirmation as nothing to " +
      "do",
    async () => {
      const acct = await account();
      const t = rand();
      const raw = {
        eventType: "Bounce",
        bounce: {
          bounceType: "Permanent",
          bounceSubType: "General",
          timestamp: "2017-08-05T00:41:02.669Z",
          bouncedRecipients: [{ emailAddress: `r-${t}@acme.example` }],
        },
        mail,
      };
      expect((await inbound("ses", acct.fb, raw)).body.data).toMatchObject({ recorded: 1, suppressed: 1 });
      const unsubscribed = await inbound(
        "ses",
        acct.fb,
        await confirmation(
          "UnsubscribeConfirmation",
          "https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription",
        ),
        sns("UnsubscribeConfirmation"),
      );
      expect(unsubscribed.body.data).toMatchObject({ recorded: 0, ignored: 0, confirmed: false });
    },
  );
});
