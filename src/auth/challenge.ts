import { database } from "../db/client";
import { usedChallengeTokens } from "../db/schema";
import { ApiError } from "../http/errors";
import { sha256Hex } from "../platform/tokens";

const challengeFailed = (message: string) => new ApiError("CHALLENGE_FAILED", message);

/**
 * Confirms a bot-challenge token with the Turnstile-compatible siteverify endpoint (CHALLENGE_VERIFY_URL). A token is
 * spent before it is verified, so it is accepted at most once whatever the verifier says about a second use.
 */
export async function confirmChallenge(
  env: Env,
  secret: string,
  token: string | null | undefined,
  remoteIp: string | undefined,
) {
  if (!token) throw challengeFailed("This key requires a challenge_token from the bot challenge.");
  const spent = await database(env)
    .insert(usedChallengeTokens)
    .values({ tokenHash: await sha256Hex(token), usedAt: Date.now() })
    .onConflictDoNothing()
    .returning({ tokenHash: usedChallengeTokens.tokenHash });
  if (spent.length === 0) throw challengeFailed("The challenge_token was already used.");

  const form = new URLSearchParams({ secret, response: token });
  if (remoteIp) form.set("remoteip", remoteIp);
  let success = false;
  try {
    const response = await fetch(env.CHALLENGE_VERIFY_URL, {
      method: "POST",
      body: form,
      signal: AbortSignal.timeout(5_000),
    });
    success = response.ok && ((await response.json()) as { success?: unknown }).success === true;
  } catch {
    throw challengeFailed("The challenge could not be confirmed; try again.");
  }
  if (!success) throw challengeFailed("The challenge_token was not confirmed.");
}
