import { Hono } from "hono";
import type { DashEnv } from "../context";
import { UsagePage } from "../pages/usage";
import { LEDGER_PAGE, ledgerPage, requestRecord, usageOf } from "../usage";

const pageNumber = (value: string | undefined) => {
  const n = Number(value ?? "1");
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : 1;
};

/** The usage page: charts of the last 30 days, the ledger by page (`?page=`), a request by its id (`?request=`). */
export const usageRoutes = new Hono<DashEnv>().get("/usage", async (c) => {
  const { accountId } = c.var.session;
  const page = pageNumber(c.req.query("page"));
  const asked = c.req.query("request")?.trim().slice(0, 64);
  const [usage, ledger, record] = await Promise.all([
    usageOf(c.env, accountId),
    ledgerPage(c.env, accountId, page),
    asked ? requestRecord(c.env, accountId, asked) : Promise.resolve(undefined),
  ]);
  const lookup = asked ? (record ? { record } : { missing: asked }) : undefined;
  return c.html(
    <UsagePage
      session={c.var.session}
      usage={usage}
      ledger={{ ...ledger, page, perPage: LEDGER_PAGE }}
      lookup={lookup}
    />,
    asked && !record ? 404 : 200,
  );
});
