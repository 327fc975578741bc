import { creditsOf } from "../../billing/credits";
import { database } from "../../db/client";
import { ApiError } from "../../http/errors";
import { normalizeCountry, readLei, type IdentifierType } from "./identifiers";
import { gleifLei, registerFor, type Register, type RegisterName } from "./registers";
import type { EntityReason, EntityResult } from "./result";
import { findEntities, installedRegisters, recentRepeats, rememberPaid, type InstalledRegister, type StoredEntity } from "./store";

/** One identifier as sent: a string is read as an LEI; an object names its type (default `lei`) and, for company numbers, the country. */
export type EntityItem = string | { identifier: string; type?: IdentifierType | null; country?: string | null };

/** Who pays: the account, and the key whose daily cap applies (null when no key is involved, e.g. a scheduled run). */
export interface EntityPayer {
  accountId: string;
  keyId: string | null;
  dailyCreditCap: number | null;
}

export interface EntityLookupContext {
  /** Ledger id of the charge: the HTTP request id, or a monitor run's id. */
  requestId?: string;
  /** Settling the same operation twice charges once (for work a queue may redeliver). */
  operationId?: string;
  now?: number;
}

export interface EntityItemAnswer {
  index: number;
  input: EntityItem;
  data: EntityResult;
  meta: { credits_used: number; cache_hit: boolean };
}

export type EntityStoppedReason = "insufficient_credits" | "key_spend_cap";

export interface EntityRun {
  /** In input order, up to where the walk stopped. */
  items: EntityItemAnswer[];
  requested: number;
  processed: number;
  /** Answered items a register carried (repeats included). */
  found: number;
  creditsUsed: number;
  creditsRemaining: number;
  stoppedReason: EntityStoppedReason | null;
}

interface Prepared {
  type: IdentifierType;
  identifier: string;
  country: string | null;
  register: Register | null;
  checksumValid: boolean | null;
  problem: EntityReason | null;
}

function prepare(item: EntityItem): Prepared {
  const raw = typeof item === "string" ? { identifier: item } : item;
  const type = raw.type ?? "lei";
  const given = raw.identifier.trim();
  if (type === "lei") {
    const lei = readLei(given);
    const problem = !lei.wellFormed ? "invalid_identifier" : lei.checksumValid ? null : "invalid_checksum";
    return { type, identifier: lei.wellFormed ? lei.lei : given, country: null, register: gleifLei, checksumValid: lei.checksumValid, problem };
  }
  const country = normalizeCountry(raw.country);
  const register = registerFor(type, country);
  if (!register) {
    const asGiven = raw.country?.trim().toUpperCase() || null;
    return { type, identifier: given, country: country ?? asGiven, register: null, checksumValid: null, problem: "unsupported_register" };
  }
  const identifier = register.normalize(given);
  return { type, identifier: identifier ?? given, country, register, checksumValid: null, problem: identifier ? null : "invalid_identifier" };
}

/** The account's repeat-window key (stored in `email_answers`, which is generic despite its name). */
const repeatKey = (p: Prepared) => (p.type === "lei" ? `entity:lei:${p.identifier}` : `entity:company_number:${p.country}:${p.identifier}`);

/** The register asked (when installed) and, for a flag, the national register the LEI record points to. */
function sourcesFor(p: Prepared, stored: StoredEntity | null, installed: Map<RegisterName, InstalledRegister>) {
  const names = [p.register?.name, stored?.linked_register].filter((n): n is RegisterName => Boolean(n && installed.has(n as RegisterName)));
  return [...new Set(names)].map((name) => ({ dataset: name, version: installed.get(name)!.version }));
}

function answer(p: Prepared, reason: EntityReason | null, stored: StoredEntity | null, installed: Map<RegisterName, InstalledRegister>): EntityResult {
  const base: EntityResult = {
    identifier: p.identifier,
    identifier_type: p.type,
    found: false,
    reason,
    name: null,
    status: null,
    status_detail: null,
    country: p.country,
    checksum_valid: p.type === "lei" ? p.checksumValid : null,
    registration_status: null,
    flags: [],
    sources: sourcesFor(p, stored, installed),
  };
  if (!stored) return base;
  const dissolvedThere =
    stored.registration_status === "ISSUED" &&
    stored.linked_status === "dissolved" &&
    installed.has(stored.linked_register as RegisterName);
  return {
    ...base,
    found: true,
    reason: null,
    name: stored.name,
    status: stored.status,
    status_detail: stored.status_detail,
    country: stored.country ?? p.country,
    registration_status: stored.registration_status,
    flags: dissolvedThere ? ["dissolved_in_national_register"] : [],
  };
}

/**
 * Answers identifiers from the locally synced registers, in input order, billing 1 credit for each one a register
 * carried unless the account paid for it in the last 7 days or it came earlier in the same list (`cache_hit`).
 * Malformed, unknown, unsupported and not-installed answers are free. Credits are reserved once (at least 1) for
 * every identifier that would cost one, then the list is walked in order and stops exactly at the first paid
 * identifier the grant cannot cover (`stoppedReason`). Throws 402 INSUFFICIENT_CREDITS / 429 KEY_SPEND_CAP_REACHED
 * only when the very first identifier is a paid one that is refused; nothing is charged then.
 *
 * Used by POST /entity, POST /entity/batch and entity monitors; `payer` null answers without billing anyone.
 */
export async function lookupEntities(env: Env, payer: EntityPayer | null, items: EntityItem[], context: EntityLookupContext = {}): Promise<EntityRun> {
  const db = database(env);
  const now = context.now ?? Date.now();
  const requestId = context.requestId ?? `entity-${crypto.randomUUID()}`;
  const prepared = items.map(prepare);

  const wanted = new Map<RegisterName, string[]>();
  for (const p of prepared) {
    if (!p.register || p.problem) continue;
    const list = wanted.get(p.register.name);
    if (list) list.push(p.identifier);
    else wanted.set(p.register.name, [p.identifier]);
  }
  const candidateKeys = prepared.filter((p) => p.register && !p.problem).map(repeatKey);
  const [installed, stored, repeats] = await Promise.all([
    installedRegisters(db),
    Promise.all([...wanted].map(async ([name, ids]) => [name, await findEntities(db, name, ids)] as const)).then((found) => new Map(found)),
    payer && candidateKeys.length ? recentRepeats(db, payer.accountId, candidateKeys, now) : Promise.resolve(new Set<string>()),
  ]);

  const seen = new Set<string>();
  const plan = prepared.map((p) => {
    if (p.problem || !p.register) return { result: answer(p, p.problem, null, installed), cost: 0, cacheHit: false, key: null };
    if (!installed.has(p.register.name)) return { result: answer(p, "register_not_installed", null, installed), cost: 0, cacheHit: false, key: null };
    const row = stored.get(p.register.name)?.get(p.identifier) ?? null;
    if (!row) return { result: answer(p, "unknown_identifier", null, installed), cost: 0, cacheHit: false, key: null };
    const key = repeatKey(p);
    const repeat = repeats.has(key) || seen.has(key);
    seen.add(key);
    return { result: answer(p, null, row, installed), cost: payer && !repeat ? 1 : 0, cacheHit: repeat, key };
  });

  const billable = plan.filter((step) => step.cost > 0).length;
  const credits = payer ? creditsOf(env, payer.accountId) : null;
  let granted = 0;
  let limitedBy: EntityStoppedReason | null = null;
  let reservationId: string | null = null;
  if (credits && billable > 0) {
    const reservation = await credits.reserve({
      requestId,
      amount: billable,
      minimum: 1,
      keyId: payer?.keyId ?? null,
      dailyCreditCap: payer?.dailyCreditCap ?? null,
    });
    if (reservation.ok) ({ granted, reservationId, limitedBy } = reservation);
    else limitedBy = reservation.reason;
  }

  let stopIndex = items.length;
  let charged = 0;
  for (const [index, step] of plan.entries()) {
    if (step.cost === 0) continue;
    if (charged === granted) {
      stopIndex = index;
      break;
    }
    charged += step.cost;
  }

  if (stopIndex === 0) {
    if (credits && reservationId) await credits.release(reservationId);
    throw limitedBy === "key_spend_cap"
      ? new ApiError("KEY_SPEND_CAP_REACHED", "This key has reached its daily credit cap; it resets at 00:00 UTC.")
      : new ApiError("INSUFFICIENT_CREDITS", "The balance is empty; the lookup did not run.");
  }

  const answered = plan.slice(0, stopIndex);
  const paid = answered.flatMap((step) => (step.cost > 0 && step.key ? [{ key: step.key, result: step.result }] : []));
  const operation = context.operationId ? { operationId: context.operationId } : {};
  const [settled] = await Promise.all([
    !credits
      ? { charged: 0, remaining: 0 }
      : reservationId
        ? credits.settle(reservationId, { credits: charged, ...operation })
        : credits.snapshot().then((s) => ({ charged: 0, remaining: s.available })),
    payer && paid.length ? rememberPaid(db, payer.accountId, paid, now) : null,
  ]);

  return {
    items: answered.map((step, index) => ({
      index,
      input: items[index]!,
      data: step.result,
      meta: { credits_used: step.cost, cache_hit: step.cacheHit },
    })),
    requested: items.length,
    processed: answered.length,
    found: answered.filter((step) => step.result.found).length,
    creditsUsed: settled.charged,
    creditsRemaining: settled.remaining,
    stoppedReason: stopIndex < items.length ? (limitedBy ?? "insufficient_credits") : null,
  };
}
