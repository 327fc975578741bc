// The demo account `npm run dev` sets up through the operator API, and the banner that prints it (moved here from
// scripts/dev.mjs). Keys are shown only once by the API, so they are kept in .dev-demo.json and reused on later runs
// while the local data still has the account.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError, ROOT } from "./local.mjs";

export const DEMO_FILE = join(ROOT, ".dev-demo.json");
export const DEMO_EMAIL = "demo@example.com";
/** Hosts the demo page may be opened at: the publishable key's allowed domains. */
const DEMO_PAGE_HOSTS = ["localhost", "127.0.0.1"];
const DEMO_PACK_CREDITS = 900; // + the free plan's 100 monthly grant = 1,000
const SANDBOX_KEY = "sk_test_public_sandbox";

/**
 * Creates whatever part of the demo set-up is missing, saving after each step, so an interrupted run resumes instead
 * of tripping over the already-created account.
 */
export async function ensureDemo({ admin, baseUrl, log }) {
  let demo = existsSync(DEMO_FILE) ? JSON.parse(readFileSync(DEMO_FILE, "utf8")) : {};
  const save = () => writeFileSync(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`);
  let account = null;

  if (demo.account_id) {
    try {
      account = (await admin.call("GET", `/accounts/${demo.account_id}`)).data;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      log(`[dev] ${demo.account_id} from .dev-demo.json is not in the local data; creating a new demo account`);
      demo = {};
    }
  }
  if (!account) {
    account = (await admin.call("POST", "/accounts", { email: DEMO_EMAIL, email_verified: true, plan: "free" })).data;
    demo = { account_id: account.id, email: account.email };
    save();
  }
  if (!demo.pack_credits_added) {
    account = (
      await admin.call("POST", `/accounts/${demo.account_id}/credits`, {
        bucket: "pack",
        amount: DEMO_PACK_CREDITS,
        note: "npm run dev demo credits",
      })
    ).data;
    demo.pack_credits_added = DEMO_PACK_CREDITS;
    save();
  }
  if (!demo.user_id) {
    demo.user_id = (
      await admin.call("POST", `/accounts/${demo.account_id}/members`, { email: DEMO_EMAIL })
    ).data.user_id;
    save();
  }
  if (demo.secret_key && !(await secretKeyWorks(baseUrl, demo.secret_key))) {
    log("[dev] the stored secret key no longer authenticates (revoked?); creating a new one");
    delete demo.secret_key;
  }
  if (!demo.secret_key) {
    const key = (await admin.call("POST", `/accounts/${demo.account_id}/keys/secret`, { user_id: demo.user_id })).data;
    Object.assign(demo, { secret_key_id: key.id, secret_key: key.key });
    save();
  }
  // The demo page works at localhost and at 127.0.0.1 (the address wrangler prints); a key saved before 127.0.0.1 was
  // allowed is replaced by a new one.
  if (demo.publishable_key && !(demo.publishable_domains ?? []).includes("127.0.0.1")) delete demo.publishable_key;
  if (!demo.publishable_key) {
    const key = (
      await admin.call("POST", `/accounts/${demo.account_id}/keys/publishable`, { allowed_domains: DEMO_PAGE_HOSTS })
    ).data;
    Object.assign(demo, { publishable_key_id: key.id, publishable_key: key.key, publishable_domains: DEMO_PAGE_HOSTS });
    save();
  }
  // A fresh sign-in link each start (they work once, for 15 minutes): the demo member is the account's owner.
  const signIn = (await admin.call("POST", `/accounts/${demo.account_id}/sign-in-link`, { email: DEMO_EMAIL })).data
    .url;
  return { ...demo, account, signIn };
}

async function secretKeyWorks(baseUrl, key) {
  const res = await fetch(`${baseUrl}/api/v1/account`, { headers: { Authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status !== 401;
}

/**
 * The banner's lines. `site`: `{baseUrl, port, sidecarUrl, mailCatcherUrl, offline, logFile, ipTablesLoading}`;
 * `ipTablesLoading` says the full IP tables are still loading, so answers cite the samples meanwhile.
 */
export function demoBanner(demo, site) {
  const { baseUrl, port, sidecarUrl, mailCatcherUrl, offline, logFile, ipTablesLoading } = site;
  const { plan, balance } = demo.account;
  const line = "─".repeat(100);
  return [
    "",
    line,
    `  Local API         ${baseUrl}`,
    `  Dashboard         ${baseUrl}/dashboard`,
    `  Sign in as demo   ${demo.signIn}`,
    `                    (works once, for 15 minutes; a new one: npm run admin -- sign-in-link ${demo.account_id} ` +
      `--email ${DEMO_EMAIL})`,
    `  Demo account      ${demo.account_id}  (${demo.email}, ${plan.name} plan, balance ${balance.total}: plan ` +
      `${balance.plan} + pack ${balance.pack})`,
    `  Member            ${demo.user_id}`,
    `  Secret key        ${demo.secret_key}  (${demo.secret_key_id}, all scopes)`,
    `  Publishable key   ${demo.publishable_key}  (${demo.publishable_key_id}, allowed domains: ` +
      `${(demo.publishable_domains ?? DEMO_PAGE_HOSTS).join(", ")})`,
    `  Sandbox key       ${SANDBOX_KEY}  (documented sample lookups only; switch: npm run admin -- sandbox on|off)`,
    `  Widget demo       http://localhost:${port}/demo?key=${demo.publishable_key} (or at 127.0.0.1)`,
    `                    (the sign-up form widget, /widget/v1/verify.js; edits under widget/ rebuild it)`,
    `  SMTP sidecar      ${sidecarUrl}  (SIDECAR_PORT; secret: SMTP_SIDECAR_SECRET in .dev.vars)`,
    ...(offline
      ? [
          `  Offline           DNS, RDAP, SMTP and the dataset publishers are local stand-ins ` +
            `(SIDECAR_PORT+1..+4): try alice@acme.example (deliverable,`,
          `                    1 credit, then a free repeat), nobody@acme.example, z@catchall.example; ` +
            `docs/offline.md lists them.`,
          `                    Partners (SIDECAR_PORT+7): POST /phone {"phone": "+16502530000", "network": true} ` +
            `(2 credits), and`,
          `                    POST /address {"address": "99999 Nonexistent Blvd, Mountain View, CA 94043", ` +
            `"country": "US", "delivery_point": true}.`,
          `  Payments          Buying credits (dashboard, Account) leads to a local payment page (SIDECAR_PORT+8): ` +
            `Pay or Cancel,`,
          `                    no card; Pay sends the signed Stripe event and returns to the dashboard with the ` +
            `credits.`,
        ]
      : [
          `                    Mailbox checks go through it: it dials port ${process.env.SMTP_PORT || 25} of each ` +
            `MX. Most dev machines and`,
          `                    networks block outbound port 25: real addresses then come back risky/unverified ` +
            `(after up to`,
          `                    the lookup's timeout), not as errors. Without internet, \`npm run dev -- ` +
            `--offline\` answers`,
          `                    sample domains locally. deliverable@service.test and the other test addresses need ` +
            `neither.`,
        ]),
    ...(ipTablesLoading
      ? [
          `  IP lookups        IP tables loading in the background (see log): until a line here says they are in, ` +
            `the shipped`,
          `                    samples answer (sources cite their -sample versions; an address they miss is ` +
            `not_covered).`,
        ]
      : []),
    "",
    `  Try it:  curl -H "Authorization: Bearer ${demo.secret_key}" ${baseUrl}/api/v1/account`,
    `  Operator API:  npm run admin -- help   (token: ADMIN_TOKEN in .dev.vars)`,
    `  Mail sent:     ${mailCatcherUrl}   (the local catcher; also GET /admin/v1/mail)`,
    `  Log:           ${logFile}   (wrangler, sidecars, migrations, dataset loads)`,
    `  Keys are saved in .dev-demo.json and reused next time. Ctrl-C stops the server.`,
    line,
    "",
  ];
}
