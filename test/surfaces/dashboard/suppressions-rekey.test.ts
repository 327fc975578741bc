/**
 * The suppressions page re-keys address entries stored under an older key version before it reads or adds to the
 * list, as `GET` and `POST /address/suppressions` do (src/engines/rekey.ts; the API's case is
 * test/products/address/keys-upgrade.test.ts): an old entry shows under its current key and is not added twice.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { manualSuppression } from "../../../src/products/address/suppressed";
import type { AddressInput } from "../../../src/products/address/result";
import { installAddressData } from "../../address-samples";
import { signedUpOwner } from "../../dashboard-browser";
import { accountRows } from "../../helpers";

vi.setConfig({ testTimeout: 30_000 });

beforeAll(() => installAddressData());

const NY = (line1: string): AddressInput => ({ address: `${line1}, New York, NY 10001`, country: "US" });
const OLD_KEY = "US|10001|NEW YORK|NY|8 SAINT MARKS PL|";
const NEW_KEY = "US|10001|NEW YORK|NY|8 SAINT MARKS PLACE|";

/** A new account with one address entry as the previous release wrote it (old key, no key_version). */
async function ownerWithOldEntry(label: string) {
  const { browser, email } = await signedUpOwner(label);
  const account = await env.DB.prepare("SELECT id FROM accounts WHERE email = ?").bind(email).first<{ id: string }>();
  await env.DB.prepare(
    "INSERT INTO suppressions (account_id, product, key, reason, source, result, created_at) " +
      "VALUES (?, 'address', ?, 'manual', 'manual', ?, ?)",
  )
    .bind(account!.id, OLD_KEY, JSON.stringify(manualSuppression(NY("8 St Marks Pl"))), Date.now() - 86_400_000)
    .run();
  return { browser, accountId: account!.id };
}

const rows = (accountId: string) =>
  accountRows(accountId, "SELECT key, key_version FROM suppressions WHERE product = 'address' ORDER BY key");

const add = (browser: Awaited<ReturnType<typeof signedUpOwner>>["browser"]) =>
  browser.submit("/dashboard/suppressions?product=address", "/dashboard/suppressions/address", {
    values: JSON.stringify([NY("8 Saint Marks Place")]),
  });

describe("dashboard: suppressions stored under an older address key", () => {
  it("the list page shows the entry under its current key", async () => {
    const { browser, accountId } = await ownerWithOldEntry("sup-rekey-list");
    const page = await (await browser.fetch("/dashboard/suppressions?product=address")).text();
    expect(page).toContain("address: 1 suppressed");
    expect(page).toContain(`<code>${NEW_KEY}</code>`);
    expect(page).not.toContain(`<code>${OLD_KEY}</code>`);
    expect(await rows(accountId)).toEqual([{ key: NEW_KEY, key_version: 2 }]);
  });

  it("adding the same address in another spelling (the form's first call) adds nothing", async () => {
    const { browser, accountId } = await ownerWithOldEntry("sup-rekey-add");
    const added = await add(browser);
    expect(added.status).toBe(200);
    expect(await added.text()).toContain("Added 0; invalid: none; test values (never suppressed): none.");
    expect(await rows(accountId)).toEqual([{ key: NEW_KEY, key_version: 2 }]);
  });
});
