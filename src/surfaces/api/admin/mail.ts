import { Hono } from "hono";
import { z } from "zod";
import { database } from "../../../db/client";
import { listMail } from "../../../engines/mail/list";
import { ok } from "../../../http/envelope";
import { queryParams } from "../../../http/validation";
import type { AppEnv } from "../../../types";

/**
 * Every message the service sent or is sending (docs/mail.md), newest first: recipient, subject, kind, status and the
 * text body, in every environment, so an operator (or a black-box test) can follow a confirmation link.
 */
export const adminMailRoutes = new Hono<AppEnv>().get(
  "/mail",
  queryParams(
    z.object({
      account_id: z.string().max(64).optional(),
      recipient: z.string().max(254).optional(),
      kind: z.string().max(64).optional(),
      limit: z.coerce.number().int().min(1).max(200).default(50),
      /** An ISO time: only messages created before it (the previous page's last `created_at`). */
      before: z.iso.datetime().optional(),
    }),
  ),
  async (c) => {
    const q = c.req.valid("query");
    const messages = await listMail(database(c.env), {
      accountId: q.account_id,
      recipient: q.recipient,
      kind: q.kind,
      limit: q.limit,
      before: q.before === undefined ? undefined : Date.parse(q.before),
    });
    return ok(c, { messages });
  },
);
