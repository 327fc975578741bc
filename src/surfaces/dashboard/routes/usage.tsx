import { Hono } from "hono";
import { requestCredential } from "../../../http/credential";
import { hitLimit, LIMITS } from "../../../limits/limiter";
import type { DashEnv } from "../context";
import { UsagePage } from "../pages/usage";
import { LEDGER_PAGE, ledgerPage, requestRecord, usageOf } from "../usage";

const pageNumber = (value: string | undefined) => {
  const n = Number(value ?? "1");
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
};

/**
 * The usage page: charts of the last 30 days, the ledger by page (`?page=`), a request by its id (`?request=`, at most
 * `LIMITS.requestLookupUser` a minute per signed-in user: a record on its way may be waited for, so a lookup is not
 * free for the service; over it, the page answers 429 with a notice and `Retry-After`).
 */
export const usageRoutes = new Hono<DashEnv>().get("/usage", async (c) => {
  const { accountId, userId } = c.var.session;
  const page = pageNumber(c.req.query("page"));
  const asked = c.req.query("request")?.trim().slice(0, 64);
  const limit = asked ? hitLimit(c.env, "requestLookupUser", userId) : Promise.resolve(null);
  const found = limit.then((hit) =>
    asked && hit?.allowed
      ? requestRecord(c.env, { accountId, requestId: asked, credential: requestCredential(c) })
      : undefined,
  );
  const [usage, ledger, hit, record] = await Promise.all([
    usageOf(c.env, accountId),
    ledgerPage(c.env, accountId, page),
    limit,
    found,
  ]);
  const limited = hit && !hit.allowed ? { limited: LIMITS.requestLookupUser.message } : undefined;
  const lookup = asked ? (limited ?? (record ? { record } : { missing: asked })) : undefined;
  if (hit && !hit.allowed) c.header("Retry-After", String(hit.retryAfterSeconds));
  return c.html(
    <UsagePage
      session={c.var.session}
      usage={usage}
      ledger={{ ...ledger, page, perPage: LEDGER_PAGE }}
      lookup={lookup}
    />,
    limited ? 429 : asked && !record ? 404 : 200,
  );
});
