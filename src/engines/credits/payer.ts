import { eq } from "drizzle-orm";
import { database } from "../../db/client";
import { apiKeys } from "../../db/schema";
import type { Payer } from "./credits";

/** Who pays for queued work (a bulk chunk, a monitor run): the key that started it, with its daily cap as it is now. */
export async function storedPayer(env: Env, accountId: string, keyId: string): Promise<Payer> {
  const key = await database(env)
    .select({ cap: apiKeys.dailyCreditCap })
    .from(apiKeys)
    .where(eq(apiKeys.id, keyId))
    .get();
  return { accountId, keyId, dailyCreditCap: key?.cap ?? null };
}
