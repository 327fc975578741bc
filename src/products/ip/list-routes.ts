import { Hono, type Context, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { secretPrincipal } from "../../auth/principal";
import { database } from "../../db/client";
import { ok } from "../../http/envelope";
import { ApiError, notFound, validationFailed } from "../../http/errors";
import { describe } from "../../http/openapi";
import { iso } from "../../http/time";
import { jsonBody, pathParams } from "../../http/validation";
import { listMatchers, MAX_LISTS_PER_ACCOUNT } from "./lists";
import { accountLists, createList, deleteList, findList, updateList, type IpListRow } from "./list-store";
import { listFields, listSchema } from "./schemas";
import type { AppEnv } from "../../types";

const view = (row: IpListRow) => ({
  id: row.id,
  name: row.name,
  kind: row.kind,
  entries: row.entries,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
});

/** The entries' matchers, or 422 naming each entry that is not an address, a block or an AS number. */
function matchersOf(entries: (string | number)[]) {
  const read = listMatchers(entries);
  if (read.ok) return read.matchers;
  throw validationFailed(
    Object.fromEntries(read.invalid.map((i) => [`entries.${i}`, ["Not an IP address, a CIDR block or an AS number."]])),
  );
}

const listParam = pathParams(z.object({ listId: z.coerce.number().int().min(1) }));
const listResponse = z.object({ list: listSchema });
const accountOf = (c: Context<AppEnv>) => secretPrincipal(c).accountId;

/**
 * `GET, POST /ip/lists`, `GET, PATCH, DELETE /ip/lists/{listId}`: the account's allow and deny lists (docs/ip.md),
 * behind `scope`, the app's secret-key check for the `ip` scope (handed in: auth reads the product registry).
 */
export const ipListRoutes = (scope: MiddlewareHandler<AppEnv>) =>
  new Hono<AppEnv>()
    .get(
      "/ip/lists",
      describe({
        operationId: "listIpLists",
        tag: "IP lists",
        summary: "The account's allow and deny lists, oldest first",
        description:
          "The account's own IP lists. An IP answer names the list holding the address or its AS (`list`, a deny " +
          "list over an allow list); a deny list adds to the risk (`deny_list`). Free.",
        response: z.object({ lists: z.array(listSchema) }),
        meta: z.object({ total: z.int(), max_lists: z.int() }),
      }),
      scope,
      async (c) => {
        const rows = await accountLists(database(c.env), accountOf(c));
        return ok(c, { lists: rows.map(view) }, { total: rows.length, max_lists: MAX_LISTS_PER_ACCOUNT });
      },
    )
    .post(
      "/ip/lists",
      describe({
        operationId: "createIpList",
        tag: "IP lists",
        summary: `Create an allow or deny list (at most ${MAX_LISTS_PER_ACCOUNT} per account)`,
        description:
          "Creates a list of addresses and CIDR ranges (IPv4 and IPv6). Applies to lookups from the next request. " +
          "Free.",
        status: 201,
        response: listResponse,
        errors: ["IP_LIST_LIMIT_REACHED"],
      }),
      scope,
      jsonBody(z.object(listFields)),
      async (c) => {
        const body = c.req.valid("json");
        const row = await createList(
          c.env.DB,
          accountOf(c),
          { name: body.name, kind: body.kind, matchers: matchersOf(body.entries) },
          Date.now(),
        );
        if (!row)
          throw new ApiError(
            "IP_LIST_LIMIT_REACHED",
            `An account has at most ${MAX_LISTS_PER_ACCOUNT} IP lists; delete one first.`,
          );
        return ok(c, { list: view(row) }, {}, 201);
      },
    )
    .get(
      "/ip/lists/:listId",
      describe({
        operationId: "getIpList",
        tag: "IP lists",
        summary: "One list",
        description: "The list with its entries. Another account's list is 404. Free.",
        response: listResponse,
        errors: ["NOT_FOUND"],
      }),
      scope,
      listParam,
      async (c) => {
        const row = await findList(database(c.env), accountOf(c), c.req.valid("param").listId);
        if (!row) throw notFound("IP list");
        return ok(c, { list: view(row) });
      },
    )
    .patch(
      "/ip/lists/:listId",
      describe({
        operationId: "updateIpList",
        tag: "IP lists",
        summary: "Rename a list, change its kind or replace its entries",
        description: "Changes the fields given; `entries` replaces the whole list. Free.",
        response: listResponse,
        errors: ["NOT_FOUND"],
      }),
      scope,
      listParam,
      jsonBody(
        z
          .object(listFields)
          .partial()
          .refine((b) => Object.keys(b).length > 0, "Name at least one of name, kind, entries."),
      ),
      async (c) => {
        const body = c.req.valid("json");
        const fields = {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.kind ? { kind: body.kind } : {}),
          ...(body.entries ? { matchers: matchersOf(body.entries) } : {}),
        };
        const row = await updateList(database(c.env), {
          accountId: accountOf(c),
          id: c.req.valid("param").listId,
          fields,
          now: Date.now(),
        });
        if (!row) throw notFound("IP list");
        return ok(c, { list: view(row) });
      },
    )
    .on(
      "DELETE",
      "/ip/lists/:listId",
      describe({
        operationId: "deleteIpList",
        tag: "IP lists",
        summary: "Delete a list",
        description: "Deletes the list; answers it as it was. Free.",
        response: listResponse,
        errors: ["NOT_FOUND"],
      }),
      scope,
      listParam,
      async (c) => {
        const row = await deleteList(database(c.env), accountOf(c), c.req.valid("param").listId);
        if (!row) throw notFound("IP list");
        return ok(c, { list: view(row) });
      },
    );
