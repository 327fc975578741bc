import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";
import { describe, expect, it, vi } from "vitest";
import { Browser, signedUpOwner } from "../../dashboard-browser";

vi.setConfig({ testTimeout: 30_000 });

const enc = new TextEncoder();
const b64 = (bytes: Uint8Array) => isoBase64URL.fromBuffer(bytes as Uint8Array<ArrayBuffer>);
const sha256 = async (data: Uint8Array) => new Uint8Array(await crypto.subtle.digest("SHA-256", data));
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
};
const u32 = (n: number) => new Uint8Array([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

/** WebCrypto signs P-256 as r|s; WebAuthn carries the DER SEQUENCE of two INTEGERs. */
function derSignature(raw: Uint8Array) {
  const int = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = bytes.slice(i);
    const body = trimmed[0]! & 0x80 ? concat(new Uint8Array([0]), trimmed) : trimmed;
    return concat(new Uint8Array([0x02, body.length]), body);
  };
  const seq = concat(int(raw.slice(0, 32)), int(raw.slice(32)));
  return concat(new Uint8Array([0x30, seq.length]), seq);
}

/** A software authenticator (ES256, "none" attestation) for https://api.test, as a platform passkey answers. */
class Authenticator {
  private keys!: CryptoKeyPair;
  readonly credentialId = crypto.getRandomValues(new Uint8Array(32));
  private counter = 0;
  private readonly rpIdHash = sha256(enc.encode("api.test"));

  async create(challenge: string) {
    this.keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const raw = new Uint8Array((await crypto.subtle.exportKey("raw", this.keys.publicKey)) as ArrayBuffer);
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, raw.slice(1, 33)],
        [-3, raw.slice(33)],
      ]),
    );
    const authData = concat(
      await this.rpIdHash,
      new Uint8Array([0x45]),
      u32(0),
      new Uint8Array(16),
      new Uint8Array([0, 32]),
      this.credentialId,
      cose,
    );
    const clientDataJSON = enc.encode(
      JSON.stringify({ type: "webauthn.create", challenge, origin: "https://api.test", crossOrigin: false }),
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    const id = b64(this.credentialId);
    return {
      id,
      rawId: id,
      type: "public-key",
      response: {
        clientDataJSON: b64(clientDataJSON),
        attestationObject: b64(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
    };
  }

  async get(challenge: string) {
    const authData = concat(await this.rpIdHash, new Uint8Array([0x05]), u32(++this.counter));
    const clientDataJSON = enc.encode(
      JSON.stringify({ type: "webauthn.get", challenge, origin: "https://api.test", crossOrigin: false }),
    );
    const signed = concat(authData, await sha256(clientDataJSON));
    const signature = new Uint8Array(
      await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, this.keys.privateKey, signed),
    );
    const id = b64(this.credentialId);
    return {
      id,
      rawId: id,
      type: "public-key",
      response: {
        clientDataJSON: b64(clientDataJSON),
        authenticatorData: b64(authData),
        signature: b64(derSignature(signature)),
      },
      clientExtensionResults: {},
    };
  }
}

const json = (browser: Browser, path: string, csrf: string, body: unknown = {}) =>
  browser.fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
  });

describe("dashboard: passkeys", () => {
  it(
    "a signed-in user registers a passkey; a signed-out browser then signs in with it, once per " + "challenge",
    async () => {
      const { browser } = await signedUpOwner("passkey");
      const csrf = await browser.token("/dashboard/account");
      const authenticator = new Authenticator();
      const { challengeId, options } = (await (await json(browser, "/dashboard/passkeys/options", csrf)).json()) as {
        challengeId: string;
        options: { challenge: string; rp: { id: string } };
      };
      expect(options.rp.id).toBe("api.test");
      const registered = await json(browser, "/dashboard/passkeys", csrf, {
        challengeId,
        response: await authenticator.create(options.challenge),
      });
      expect([registered.status, await registered.json()]).toEqual([201, { registered: true }]);
      expect(await (await browser.fetch("/dashboard/account")).text()).not.toContain("No passkey yet");

      const visitor = new Browser();
      const anon = await visitor.token("/dashboard/sign-in");
      const login = (await (await json(visitor, "/dashboard/sign-in/passkey/options", anon)).json()) as {
        challengeId: string;
        options: { challenge: string };
      };
      const assertion = await authenticator.get(login.options.challenge);
      const signedIn = await json(visitor, "/dashboard/sign-in/passkey", anon, {
        challengeId: login.challengeId,
        response: assertion,
      });
      expect([signedIn.status, await signedIn.json()]).toEqual([200, { signed_in: true, location: "/dashboard" }]);
      expect((await visitor.fetch("/dashboard/keys")).status).toBe(200);

      // The same assertion again: its challenge is used up.
      const replay = await json(new Browser(), "/dashboard/sign-in/passkey", anon, {
        challengeId: login.challengeId,
        response: assertion,
      });
      expect(replay.status).toBe(403);
      const other = new Browser();
      const otherToken = await other.token("/dashboard/sign-in");
      expect(
        (
          await json(other, "/dashboard/sign-in/passkey", otherToken, {
            challengeId: login.challengeId,
            response: assertion,
          })
        ).status,
      ).toBe(400);
    },
  );

  it("registration needs the session's CSRF token; a response to another challenge does not register", async () => {
    const { browser } = await signedUpOwner("passkey-csrf");
    expect((await json(browser, "/dashboard/passkeys/options", "wrong-token")).status).toBe(403);
    const csrf = await browser.token("/dashboard/account");
    const first = (await (await json(browser, "/dashboard/passkeys/options", csrf)).json()) as { challengeId: string };
    const response = await new Authenticator().create(isoBase64URL.fromUTF8String("not the challenge"));
    expect(
      (await json(browser, "/dashboard/passkeys", csrf, { challengeId: first.challengeId, response })).status,
    ).toBe(400);
  });
});
