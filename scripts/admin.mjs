// `npm run admin -- <command> ...`: the operator API (/admin/v1, src/surfaces/api/admin/*.ts) from the command line.
// Prints the JSON response; exits 1 on an error envelope or an unreachable server, 2 on a usage error.
// ADMIN_URL (default http://127.0.0.1:$PORT, PORT 8787; the importers read it too) and ADMIN_TOKEN (default:
// ADMIN_TOKEN in .dev.vars) come from the environment.
import { parseArgs } from "node:util";
import { adminClient, defaultAdminUrl, readDevVars, requireNode22 } from "./lib/local.mjs";
import { refusalFile, refusedAt, rememberRefusal } from "./lib/refused-tokens.mjs";

requireNode22();

const int = (name) => (value) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) usage(`--${name} must be a whole number, got "${value}"`);
  return Number(value);
};
const list = (value) =>
  value === undefined
    ? undefined
    : value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
const path = (...parts) => parts.map(encodeURIComponent).join("/");

/**
 * name -> { args: positionals, options: parseArgs options, help, request(values, positionals) -> [method, path, body?]
 * }
 */
const COMMANDS = {
  "create-account": {
    options: { email: { type: "string" }, verified: { type: "boolean" }, plan: { type: "string" } },
    help: "--email E [--verified] [--plan free|starter|growth|enterprise]",
    request: (o) => [
      "POST",
      "/accounts",
      { email: required(o, "email"), email_verified: o.verified ?? false, ...(o.plan ? { plan: o.plan } : {}) },
    ],
    // Re-running the README sequence: an account with this email already exists, so print that one (said on stderr).
    onConflict: (o) => ["GET", `/accounts?${new URLSearchParams({ email: o.email })}`],
  },
  "find-account": {
    options: { email: { type: "string" } },
    help: "--email E (the account whose own address is E; exit 1 when none)",
    request: (o) => ["GET", `/accounts?${new URLSearchParams({ email: required(o, "email") })}`],
  },
  "list-keys": {
    args: ["ID"],
    help: "(every key of the account, revoked ones too, newest first)",
    request: (_o, [id]) => ["GET", `/accounts/${path(id)}/keys`],
  },
  "list-members": {
    args: ["ID"],
    help: "(user ids, emails and roles)",
    request: (_o, [id]) => ["GET", `/accounts/${path(id)}/members`],
  },
  "sign-in-link": {
    args: ["ID"],
    options: { email: { type: "string" } },
    help: "--email E (a dashboard sign-in link for a member, valid once for 15 minutes)",
    request: (o, [id]) => ["POST", `/accounts/${path(id)}/sign-in-link`, { email: required(o, "email") }],
  },
  "get-account": { args: ["ID"], request: (_o, [id]) => ["GET", `/accounts/${path(id)}`] },
  "verify-email": { args: ["ID"], request: (_o, [id]) => ["POST", `/accounts/${path(id)}/verify-email`] },
  "send-confirmation": { args: ["ID"], request: (_o, [id]) => ["POST", `/accounts/${path(id)}/confirmation-email`] },
  "list-mail": {
    options: {
      account: { type: "string" },
      recipient: { type: "string" },
      kind: { type: "string" },
      limit: { type: "string" },
    },
    help: "[--account ID] [--recipient E] [--kind K] [--limit N]",
    request: (o) => {
      const query = new URLSearchParams(
        Object.entries({ account_id: o.account, recipient: o.recipient, kind: o.kind, limit: o.limit }).filter(
          ([, v]) => v !== undefined,
        ),
      );
      return ["GET", `/mail${query.size ? `?${query}` : ""}`];
    },
  },
  "add-credits": {
    args: ["ID"],
    options: { bucket: { type: "string" }, amount: { type: "string" }, note: { type: "string" } },
    help: "--bucket plan|pack --amount N [--note T]",
    request: (o, [id]) => [
      "POST",
      `/accounts/${path(id)}/credits`,
      {
        bucket: required(o, "bucket"),
        amount: int("amount")(required(o, "amount")),
        ...(o.note ? { note: o.note } : {}),
      },
    ],
  },
  "set-plan": {
    args: ["ID", "PLAN"],
    help: "(PLAN: free|starter|growth|enterprise|cancelled)",
    request: (_o, [id, plan]) => ["POST", `/accounts/${path(id)}/plan`, { plan }],
  },
  "add-member": {
    args: ["ID"],
    options: { email: { type: "string" } },
    help: "--email E",
    request: (o, [id]) => ["POST", `/accounts/${path(id)}/members`, { email: required(o, "email") }],
  },
  "remove-member": {
    args: ["ID", "USER_ID"],
    request: (_o, [id, userId]) => ["DELETE", `/accounts/${path(id, "members", userId)}`],
  },
  "create-secret-key": {
    args: ["ID"],
    options: {
      user: { type: "string" },
      scopes: { type: "string" },
      "allow-ip": { type: "string", multiple: true },
      "daily-cap": { type: "string" },
    },
    help: "--user USER_ID [--scopes email,account,...] [--allow-ip CIDR]... [--daily-cap N]",
    request: (o, [id]) => [
      "POST",
      `/accounts/${path(id)}/keys/secret`,
      {
        user_id: required(o, "user"),
        ...(o.scopes ? { scopes: list(o.scopes) } : {}),
        ...(o["allow-ip"] ? { allowed_ips: o["allow-ip"] } : {}),
        ...(o["daily-cap"] ? { daily_credit_cap: int("daily-cap")(o["daily-cap"]) } : {}),
      },
    ],
  },
  "create-publishable-key": {
    args: ["ID"],
    options: {
      domain: { type: "string", multiple: true },
      "daily-cap": { type: "string" },
      "challenge-site-key": { type: "string" },
      "challenge-secret": { type: "string" },
      user: { type: "string" },
    },
    help: "--domain D [--domain D]... [--daily-cap N] [--challenge-site-key K --challenge-secret S] [--user USER_ID]",
    request: (o, [id]) => {
      if (!o["challenge-site-key"] !== !o["challenge-secret"])
        usage("--challenge-site-key and --challenge-secret go together");
      return [
        "POST",
        `/accounts/${path(id)}/keys/publishable`,
        {
          allowed_domains: required(o, "domain").flatMap(list),
          ...(o.user ? { user_id: o.user } : {}),
          ...(o["daily-cap"] ? { daily_credit_cap: int("daily-cap")(o["daily-cap"]) } : {}),
          ...(o["challenge-site-key"]
            ? { challenge: { site_key: o["challenge-site-key"], secret: o["challenge-secret"] } }
            : {}),
        },
      ];
    },
  },
  "revoke-key": { args: ["KEY_ID"], request: (_o, [keyId]) => ["DELETE", `/keys/${path(keyId)}`] },
  sandbox: {
    args: ["on|off"],
    request: (_o, [state]) => {
      if (state !== "on" && state !== "off") usage('sandbox takes "on" or "off"');
      return ["PUT", "/sandbox", { enabled: state === "on" }];
    },
  },
  "rotate-feedback-key": { args: ["ID"], request: (_o, [id]) => ["POST", `/accounts/${path(id)}/feedback-key`] },
};

function help() {
  const lines = Object.entries(COMMANDS).map(
    ([name, c]) => `  ${[name, ...(c.args ?? []), c.help ?? ""].join(" ").trimEnd()}`,
  );
  console.log(
    [
      "Usage: npm run admin -- <command> [arguments]",
      "",
      "Commands:",
      ...lines,
      "  help",
      "",
      "Options: --get PATH before the command prints one field of the response (e.g. --get data.id).",
      "Environment: ADMIN_URL (default http://127.0.0.1:$PORT, PORT 8787), ADMIN_TOKEN (default: from .dev.vars).",
      "Prints the JSON response; exit status 1 on an error response, 2 on a usage error.",
    ].join("\n"),
  );
}

function usage(message) {
  console.error(`admin: ${message}\nRun \`npm run admin -- help\` for the commands.`);
  process.exit(2);
}

function required(values, name) {
  if (values[name] === undefined) usage(`--${name} is required`);
  return values[name];
}

// `--get data.id` (before the command) prints just that field of the response, for shell scripts.
const argv = process.argv.slice(2);
const getAt = argv[0] === "--get" ? argv[1] : undefined;
if (argv[0] === "--get" && !getAt) usage("--get needs a field path such as data.id");
const [name, ...rest] = getAt ? argv.slice(2) : argv;
if (!name || name === "help" || name === "--help" || name === "-h") {
  help();
  process.exit(name ? 0 : 2);
}
const command = COMMANDS[name];
if (!command) usage(`unknown command "${name}"`);

let parsed;
try {
  parsed = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true, strict: true });
} catch (err) {
  usage(`${name}: ${err.message}`);
}
const expected = command.args ?? [];
if (parsed.positionals.length !== expected.length) {
  usage(
    `${name} takes ${expected.length ? expected.join(" ") : "no positional arguments"}, got ` +
      `${parsed.positionals.length ? parsed.positionals.join(" ") : "none"}`,
  );
}

// An empty argument is what a failed `$(npm run --silent admin -- --get ...)` leaves behind: say so instead of calling
// the API with an empty id.
parsed.positionals.forEach((value, i) => {
  if (value.trim() === "")
    usage(`${name}: ${expected[i]} is empty (did the command that should have produced it fail?)`);
});

const [method, route, body] = command.request(parsed.values, parsed.positionals);
const baseUrl = defaultAdminUrl();
const tokenSource = process.env.ADMIN_TOKEN !== undefined ? "the ADMIN_TOKEN environment variable" : ".dev.vars";
const token = process.env.ADMIN_TOKEN ?? readDevVars().ADMIN_TOKEN;
if (!token) usage("no operator token: set ADMIN_TOKEN or put ADMIN_TOKEN=... in .dev.vars");
// A token this server refused lately is not sent again: each wrong one counts toward the 10 in 15 minutes after which
// the server refuses this address (the right token too), so repeating a stale token would lock the CLI out.
const refused = refusedAt(baseUrl, token);
if (refused !== null) {
  console.error(
    `admin: ${baseUrl} refused this operator token (from ${tokenSource}) at ${new Date(refused).toISOString()}; ` +
      "not sending it again for 15 minutes, so the server does not close this address to every token. Fix the " +
      `token, or if the server's token changed since, delete ${refusalFile()}.`,
  );
  process.exit(1);
}

let response;
try {
  const client = adminClient(baseUrl, token);
  response = await client.request(method, route, body);
  if (response.status === 401) {
    rememberRefusal(baseUrl, token);
    console.error(
      `admin: ${baseUrl} refused the operator token from ${tokenSource}; it will not be sent again for 15 minutes ` +
        "(10 wrong tokens in 15 minutes close the operator API to this address).",
    );
  }
  const exists = response.status === 422 && response.body?.error?.errors?.email?.some((m) => /already exists/.test(m));
  if (exists && command.onConflict) {
    console.error(`admin: ${name}: it already exists; printing the existing one`);
    response = await client.request(...command.onConflict(parsed.values, parsed.positionals));
  }
} catch (err) {
  console.error(
    `admin: cannot reach ${baseUrl} (${err.cause?.code ?? err.cause?.message ?? err.message}). Is \`npm run dev\` ` +
      `running? (ADMIN_URL overrides the address.)`,
  );
  process.exit(1);
}
const out = typeof response.body === "string" ? response.body : JSON.stringify(response.body, null, 2);
if (response.body?.success === true) {
  const picked = getAt?.split(".").reduce((value, key) => value?.[key], response.body);
  if (getAt && picked === undefined) usage(`the response has no ${getAt}`);
  console.log(getAt ? (typeof picked === "string" ? picked : JSON.stringify(picked)) : out);
} else {
  console.error(`HTTP ${response.status}`);
  console.error(out);
  process.exit(1);
}
