import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { admin, bearer, call, createAccount } from "../../helpers";
import { receivedAt } from "../../webhook-receiver";

/**
 * Forged Amazon SES messages on `POST /email/feedback/ses/{fb_key}` (spec, Events "Inbound"; docs/email-feedback.md):
 * anything that is or looks like an SNS envelope must verify with an SNS certificate before it is read, so each forged
 * shape below answers 422 VALIDATION_FAILED and suppresses, records and fetches nothing. Only a body with no envelope
 * field at all (raw message delivery) is read on the fb_ key alone.
 */
const rand = () => crypto.randomUUID().slice(0, 8);
const base = {
  MessageId: "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
  TopicArn: "arn:aws:sns:us-west-2:123456789012:MyTopic",
  Timestamp: "2012-05-02T00:54:06.655Z",
};
const mail = {
  timestamp: "2016-01-27T14:59:38.237Z",
  source: "sender@example.com",
  messageId: "0000014644fe5ef6",
  destination: ["a@acme.example"],
};
const bounce = (email: string) => ({
  notificationType: "Bounce",
  bounce: {
    bounceType: "Permanent",
    bounceSubType: "General",
    timestamp: "2016-01-27T14:59:38.237Z",
    bouncedRecipients: [{ emailAddress: email }],
  },
  mail,
});

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

/** Signed as SNS signs, with the fixture certificate's key (the loopback SNS stand-in serves its certificate). */
async function signed(message: Record<string, unknown>, certUrl = env.SNS_CERT_URL) {
  const der = Uint8Array.from(atob(env.SNS_SIGNING_KEY), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" }, false, [
    "sign",
  ]);
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(stringToSign(message)));
  return {
    ...message,
    SignatureVersion: "1",
    Signature: btoa(String.fromCharCode(...new Uint8Array(signature))),
    SigningCertURL: certUrl,
  };
}

const notification = (message: unknown) => signed({ Type: "Notification", ...base, Message: JSON.stringify(message) });

async function account() {
  const acct = await createAccount();
  const { feedback_key } = await admin<{ feedback_key: string }>("POST", `/accounts/${acct.accountId}/feedback-key`);
  return { ...acct, fb: feedback_key };
}

async function post(fb: string, body: unknown, type = "Notification") {
  const response = await SELF.fetch(`https://api.test/api/v1/email/feedback/ses/${fb}`, {
    method: "POST",
    headers: { "Content-Type": "text/plain; charset=UTF-8", ...(type ? { "x-amz-sns-message-type": type } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error?: { code: string; request_id: string } } };
}

/** Every forged shape, named; `victim` is the address each would suppress if it were read. */
async function forgeries(victim: string, subscribePath: string): Promise<[string, unknown, string?][]> {
  const good = await notification(bounce(victim));
  const { Signature: _s, ...unsigned } = good;
  const subscribeUrl = `${env.RECEIVER_URL}${subscribePath}?Action=ConfirmSubscription`;
  const confirmation = await signed({
    Type: "SubscriptionConfirmation",
    ...base,
    Token: "2336412f37",
    Message: "subscribe",
    SubscribeURL: subscribeUrl,
  });
  return [
    [
      "bad signature beside a top-level notificationType (the attack)",
      { ...good, Message: JSON.stringify(bounce(`other-${victim}`)), ...bounce(victim) },
    ],
    [
      "bad signature (Message tampered)",
      { ...good, Message: JSON.stringify(bounce(victim)).replace("General", "Suppressed") },
    ],
    ["missing Signature", unsigned],
    ["missing Signature beside notificationType", { ...unsigned, ...bounce(victim) }],
    ["empty Signature", { ...good, Signature: "" }],
    ["Signature that is not base64", { ...good, Signature: "%%%not base64%%%" }],
    [
      "SigningCertURL on another host",
      await signed(
        { Type: "Notification", ...base, Message: JSON.stringify(bounce(victim)) },
        "https://sns.us-west-2.amazonaws.com.evil.example/cert.pem",
      ),
    ],
    [
      "SigningCertURL over http to an SNS-looking host",
      { ...good, SigningCertURL: "http://sns.us-west-2.amazonaws.com/cert.pem" },
    ],
    ["SignatureVersion 3", { ...good, SignatureVersion: "3" }],
    ["SignatureVersion missing", (({ SignatureVersion: _v, ...rest }) => rest)(good)],
    ["raw SES body with a Type field", { ...bounce(victim), Type: "Notification" }],
    ["raw SES body with a Signature field", { ...bounce(victim), Signature: "AAAA", SigningCertURL: env.SNS_CERT_URL }],
    ["raw SES body with a Message field", { ...bounce(victim), Message: JSON.stringify(bounce(victim)) }],
    ["raw SES body with an unknown Type", { ...bounce(victim), Type: "notification" }],
    ["raw SES body posted as a SubscriptionConfirmation", bounce(victim), "SubscriptionConfirmation"],
    ["Type and header disagree", good, "SubscriptionConfirmation"],
    [
      "signed envelope whose Message is itself an envelope",
      await notification({ ...(await notification(bounce(victim))), ...bounce(victim) }),
    ],
    [
      "forged SubscriptionConfirmation (bad signature)",
      { ...confirmation, Token: "forged" },
      "SubscriptionConfirmation",
    ],
    [
      "SubscriptionConfirmation without a signature",
      (({ Signature: _x, ...rest }) => rest)(confirmation),
      "SubscriptionConfirmation",
    ],
    ["an envelope inside an array", [good]],
  ];
}

describe("POST /email/feedback/ses/{fb_key}: forged SNS envelopes", () => {
  it("refuses every forged shape with 422 VALIDATION_FAILED, suppressing, recording and fetching nothing", async () => {
    const acct = await account();
    const t = rand();
    const path = `/ok/forged-sns-${t}`;
    const cases = await forgeries(`victim-${t}@acme.example`, path);
    for (const [name, body, type] of cases) {
      const answer = await post(acct.fb, body, type);
      expect(answer.status, name).toBe(422);
      expect(answer.body.error?.code, name).toBe("VALIDATION_FAILED");
      expect(answer.body.error?.request_id, name).toMatch(/^req_/);
    }
    const { body } = await call<{ suppressions: unknown[] }>("/api/v1/email/suppressions", bearer(acct.key));
    expect(body.data.suppressions).toEqual([]);
    const summary = await call<{ total: number; ignored: number }>("/api/v1/email/feedback/summary", bearer(acct.key));
    expect(summary.body.data).toMatchObject({ total: 0, ignored: 0 });
    expect(await receivedAt(path)).toEqual([]);
    expect(cases.length).toBe(20);
  });

  it("still reads a correctly signed notification and a raw body without envelope fields", async () => {
    const acct = await account();
    const t = rand();
    expect((await post(acct.fb, await notification(bounce(`signed-${t}@acme.example`)))).status).toBe(200);
    expect((await post(acct.fb, bounce(`raw-${t}@acme.example`), "")).status).toBe(200);
    const { body } = await call<{ suppressions: { email: string }[] }>("/api/v1/email/suppressions", bearer(acct.key));
    expect(body.data.suppressions.map((s) => s.email).sort()).toEqual([
      `raw-${t}@acme.example`,
      `signed-${t}@acme.example`,
    ]);
  });
});
