import type { z } from "zod";
import { isExhaustive, isSample } from "../../db/coverage";
import { database } from "../../db/client";
import { installedSource, type Source } from "../../engines/sources";
import { normalizeCountry, readLei, typeOf, type IdentifierType } from "./identifiers";
import { gleifLei, registerFor, type Register, type RegisterName } from "./registers";
import type { EntityReason, EntityResult } from "./result";
import type { unionItem } from "./schemas";
import { findEntities, installedRegisters, type InstalledRegister, type StoredEntity } from "./store";

/**
 * One identifier as sent: a string, or an object naming its type and, for company numbers, the country. Without a
 * type the value says which it is (`typeOf`): 20 letters or digits an LEI, a UK company number's shape one in GB.
 */
export type EntityItem = z.output<typeof unionItem>;

export interface Prepared {
  type: IdentifierType;
  identifier: string;
  country: string | null;
  register: Register | null;
  checksumValid: boolean | null;
  problem: EntityReason | null;
}

export function prepare(item: EntityItem): Prepared {
  const raw = typeof item === "string" ? { identifier: item } : item;
  const given = raw.identifier.trim();
  const read = raw.type ?? typeOf(given);
  // Neither shape: no register is guessed (an LEI's checksum failure would say nothing true about it). With a
  // country whose companies no register here holds, the shape rules stop: its register is unsupported, whatever the
  // value looks like (a French SIREN, a German `HRB 86891`), never "invalid".
  if (read === null) {
    const country = normalizeCountry(raw.country);
    const unsupported = country !== null && registerFor("company_number", country) === null;
    return {
      type: "company_number",
      identifier: given,
      country,
      register: null,
      checksumValid: null,
      problem: unsupported ? "unsupported_register" : "invalid_identifier",
    };
  }
  const type = read;
  if (type === "lei") {
    const lei = readLei(given);
    // Spec, Entity result: nothing found is `unknown_identifier`; `checksum_valid: false` says the LEI is malformed.
    const problem = lei.wellFormed && lei.checksumValid ? null : "unknown_identifier";
    return {
      type,
      identifier: lei.wellFormed ? lei.lei : given,
      country: null,
      register: gleifLei,
      checksumValid: lei.checksumValid,
      problem,
    };
  }
  // A UK company number's shape sent without a type is read in the UK register, unless a country was named.
  const country = normalizeCountry(raw.country) ?? (raw.type ? null : "GB");
  const register = registerFor(type, country);
  if (!register) {
    const asGiven = raw.country?.trim().toUpperCase() || null;
    return {
      type,
      identifier: given,
      country: country ?? asGiven,
      register: null,
      checksumValid: null,
      problem: "unsupported_register",
    };
  }
  const identifier = register.normalize(given);
  return {
    type,
    identifier: identifier ?? given,
    country,
    register,
    checksumValid: null,
    problem: identifier ? null : "invalid_identifier",
  };
}

/** The repeat key: the identifier in its register's spelling (malformed ones keyed as given, never billed). */
export function entityKey(item: EntityItem): string {
  const p = prepare(item);
  if (p.problem || !p.register) return `invalid:${p.type}:${p.country ?? ""}:${p.identifier}`;
  return p.type === "lei" ? `lei:${p.identifier}` : `company_number:${p.country}:${p.identifier}`;
}

/** The register asked (when installed) and, for a flag, the national register the LEI record points to. */
function sourcesFor(
  p: Prepared,
  stored: StoredEntity | null,
  installed: Map<RegisterName, InstalledRegister>,
): Source[] {
  const names = [p.register?.name, stored?.linked_register].filter((n): n is RegisterName =>
    Boolean(n && installed.has(n as RegisterName)),
  );
  return [...new Set(names)].map((name) => installedSource(name, installed.get(name)!));
}

function answer(
  p: Prepared,
  reason: EntityReason | null,
  stored: StoredEntity | null,
  installed: Map<RegisterName, InstalledRegister>,
): EntityResult {
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
  const register = installed.get(p.register!.name);
  const dissolvedThere =
    stored.registration_status === "ISSUED" &&
    stored.linked_status === "dissolved" &&
    installed.has(stored.linked_register as RegisterName);
  return {
    ...base,
    found: true,
    // A synthetic sample's row is no register's word: the reason says so, beside the source's `coverage`.
    reason: isSample(register?.coverage) ? "sample_data" : null,
    name: stored.name,
    status: stored.status,
    status_detail: stored.status_detail,
    country: stored.country ?? p.country,
    registration_status: stored.registration_status,
    flags: dissolvedThere ? ["dissolved_in_national_register"] : [],
  };
}

/**
 * An identifier the installed register does not hold: unknown only when the register is the publisher's complete file
 * (for the country asked); a sample or part of it says nothing of the rest, which is as if no register were installed.
 */
const missing = (register: InstalledRegister, country: string | null): EntityReason =>
  isExhaustive(register.coverage, country) ? "unknown_identifier" : "register_not_installed";

/** Answers identifiers from the locally synced registers (no network): one read per register, whatever the list. */
export async function lookupIdentifiers(env: Env, items: EntityItem[]): Promise<EntityResult[]> {
  const db = database(env);
  const prepared = items.map(prepare);
  const wanted = new Map<RegisterName, string[]>();
  for (const p of prepared) {
    if (!p.register || p.problem) continue;
    wanted.set(p.register.name, [...(wanted.get(p.register.name) ?? []), p.identifier]);
  }
  const [installed, stored] = await Promise.all([
    installedRegisters(db),
    Promise.all([...wanted].map(async ([name, ids]) => [name, await findEntities(db, name, ids)] as const)).then(
      (found) => new Map(found),
    ),
  ]);
  return prepared.map((p) => {
    if (p.problem || !p.register) return answer(p, p.problem, null, installed);
    if (!installed.has(p.register.name)) return answer(p, "register_not_installed", null, installed);
    const row = stored.get(p.register.name)?.get(p.identifier) ?? null;
    return answer(p, row ? null : missing(installed.get(p.register.name)!, p.country), row, installed);
  });
}
