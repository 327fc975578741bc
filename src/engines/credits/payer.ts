import { eq } from "drizzle-orm";
import { database } from "../../db/client";
import { apiKeys } from "../../db/schema";
import type { Admission } from "../../limits/admission";
import type { Principal } from "../../types";
import type { Payer } from "./credits";

/**
 * Who pays for a request: the key's account and daily cap; nobody for the sandbox. The request's first call carries its
 * admission.
 */
export function payerOf(principal: Principal | undefined, admission?: Admission): Payer | null {
  if (!principal || principal.kind === "sandbox") return null;
  return {
    accountId: principal.accountId,
    keyId: principal.keyId,
    dailyCreditCap: principal.dailyCreditCap,
    ...(admission ? { admission } : {}),
  };
}

/** Who pays for queued work (a bulk chunk, a monitor run): the key that started it, with its daily cap as it is now. */
export async function storedPayer(env: Env, accountId: string, keyId: string): Promise<Payer> {
  const key = await database(env)
    .select({ cap: apiKeys.dailyCreditCap })
    .from(apiKeys)
    .where(eq(apiKeys.id, keyId))
    .get();
  return { accountId, keyId, dailyCreditCap: key?.cap ?? null };
}
