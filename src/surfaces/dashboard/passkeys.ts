import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import { newId } from "../../platform/tokens";
import { database } from "../../db/client";
import { acceptMembership, userAccounts } from "../../db/members";
import { insertPasskey, passkeyById, touchPasskey, userPasskeys } from "../../db/passkeys";
import { insertChallenge, takeChallenge } from "../../db/sessions";

/**
 * Passkeys through @simplewebauthn/server (maintained, runs on Web Crypto, checks attestation and assertion formats we
 * would otherwise parse by hand). The relying party is the dashboard's own host; a challenge is used once within five
 * minutes.
 */
const CHALLENGE_TTL_MS = 5 * 60_000;

export interface Origin {
  origin: string;
  rpID: string;
}

export const originOf = (url: string): Origin => {
  const u = new URL(url);
  return { origin: u.origin, rpID: u.hostname };
};

async function remember(env: Env, challenge: string, userId: string | null): Promise<string> {
  const id = newId("chl");
  await insertChallenge(database(env), { id, challenge, userId, expiresAt: Date.now() + CHALLENGE_TTL_MS });
  return id;
}

/** Options for adding a passkey to the signed-in user. */
export async function registrationOptions(env: Env, at: Origin, user: { id: string; email: string }) {
  const existing = await userPasskeys(database(env), user.id);
  const options = await generateRegistrationOptions({
    rpName: "Verification API",
    rpID: at.rpID,
    userName: user.email,
    userID: new Uint8Array(new TextEncoder().encode(user.id)),
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports as AuthenticatorTransport[] })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
  return { challengeId: await remember(env, options.challenge, user.id), options };
}

/** Verifies and stores a new passkey; false when the response does not verify. */
export async function registerPasskey(
  env: Env,
  at: Origin,
  attempt: { userId: string; challengeId: string; response: RegistrationResponseJSON },
): Promise<boolean> {
  const { userId, challengeId, response } = attempt;
  const db = database(env);
  const challenge = await takeChallenge(db, challengeId, Date.now());
  if (!challenge || challenge.userId !== userId) return false;
  const result = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge.challenge,
    expectedOrigin: at.origin,
    expectedRPID: at.rpID,
  }).catch(() => null);
  if (!result?.verified) return false;
  const { credential, credentialDeviceType } = result.registrationInfo;
  await insertPasskey(db, {
    id: credential.id,
    userId,
    publicKey: isoBase64URL.fromBuffer(credential.publicKey),
    counter: credential.counter,
    transports: credential.transports ?? [],
    name: credentialDeviceType === "multiDevice" ? "Synced passkey" : "Security key",
    createdAt: Date.now(),
    lastUsedAt: null,
  });
  return true;
}

/** Options for signing in with any passkey of this site (discoverable credentials: no address typed). */
export async function authenticationOptions(env: Env, at: Origin) {
  const options = await generateAuthenticationOptions({ rpID: at.rpID, userVerification: "preferred" });
  return { challengeId: await remember(env, options.challenge, null), options };
}

/** The user and account a passkey assertion signs in, or null when it does not verify. */
export async function signInWithPasskey(
  env: Env,
  at: Origin,
  challengeId: string,
  response: AuthenticationResponseJSON,
) {
  const db = database(env);
  const [challenge, passkey] = await Promise.all([
    takeChallenge(db, challengeId, Date.now()),
    passkeyById(db, response.id),
  ]);
  if (!challenge || challenge.userId !== null || !passkey) return null;
  const result = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge.challenge,
    expectedOrigin: at.origin,
    expectedRPID: at.rpID,
    credential: {
      id: passkey.id,
      publicKey: isoBase64URL.toBuffer(passkey.publicKey),
      counter: passkey.counter,
      transports: passkey.transports as AuthenticatorTransport[],
    },
  }).catch(() => null);
  if (!result?.verified) return null;
  await touchPasskey(db, passkey, result.authenticationInfo.newCounter, Date.now());
  const accountId = (await userAccounts(db, passkey.userId))[0]?.accountId;
  // Signing in to an account whose invitation is pending (the user's only one) accepts it, as a link would.
  return accountId && (await acceptMembership(db, accountId, passkey.userId, Date.now()))
    ? { userId: passkey.userId, accountId }
    : null;
}
