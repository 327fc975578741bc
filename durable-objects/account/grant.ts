import type { Balance } from "./balance";

type Limit = "insufficient_credits" | "key_spend_cap";

/** What a hold asks for: credits wanted and the fewest worth holding, and who is holding. */
export interface GrantAsk {
  wanted: number;
  minimum: number;
  share: boolean;
  keyId: string | null;
  cap: number | null;
  /** What the reservation being resized already holds (0 for a new hold). */
  own: number;
  /** Credits of `own` already used by answers (a resize). */
  spent?: number;
}

type Granted =
  | { ok: true; granted: number; limitedBy: Limit | null; available: number }
  | { ok: false; reason: Limit; available: number };

/**
 * How many credits a hold may take: what is available (plus what `own`, the reservation being resized, already
 * holds), within the key's daily cap, and with `share` at most half of it (never less than the minimum), so work in
 * flight never shuts out a concurrent request. `limitedBy` names what cut the grant short, if anything did.
 * `capReached` is told when the key's cap refuses or cuts the grant short.
 */
export function grantCredits(
  balance: Balance,
  now: number,
  g: GrantAsk,
  capReached: (keyId: string, cap: number, now: number) => void,
): Granted {
  const available = balance.available(now) + g.own - (g.spent ?? 0);
  let granted = Math.min(g.wanted, available);
  let limitedBy: Limit | null = granted < g.wanted ? "insufficient_credits" : null;
  if (g.keyId && g.cap != null) {
    const capLeft = Math.max(
      0,
      g.cap - balance.keySpend.today(g.keyId, now) - balance.keyHeld(g.keyId) + g.own - (g.spent ?? 0),
    );
    if (capLeft < g.minimum) {
      capReached(g.keyId, g.cap, now);
      return { ok: false, reason: "key_spend_cap", available };
    }
    if (capLeft < granted) {
      capReached(g.keyId, g.cap, now);
      granted = capLeft;
      limitedBy = "key_spend_cap";
    }
  }
  if (granted < g.minimum) return { ok: false, reason: "insufficient_credits", available };
  if (g.share) granted = Math.min(granted, Math.max(g.minimum, Math.ceil(available / 2)));
  return { ok: true, granted, limitedBy, available };
}
