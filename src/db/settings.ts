import { eq } from "drizzle-orm";
import type { Database } from "./client";
import { settings } from "./schema";

/** Operator switches with their defaults when never set. */
const DEFAULTS = { sandbox_enabled: "true" } as const;

export type SettingName = keyof typeof DEFAULTS;

export async function getSetting(db: Database, name: SettingName): Promise<string> {
  const row = await db.select({ value: settings.value }).from(settings).where(eq(settings.name, name)).get();
  return row?.value ?? DEFAULTS[name];
}

export async function putSetting(db: Database, name: SettingName, value: string): Promise<void> {
  await db.insert(settings).values({ name, value }).onConflictDoUpdate({ target: settings.name, set: { value } });
}
