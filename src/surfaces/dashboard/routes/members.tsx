import { Hono } from "hono";
import { z } from "zod";
import { database } from "../../../db/client";
import { accountMembers } from "../../../db/members";
import { inviteMember, removeMember, setMemberRole } from "../accounts";
import { ownerOnly, type DashContext, type DashEnv } from "../context";
import { MembersPage } from "../pages/members";

const OUTCOME_ERRORS: Record<string, [number, string]> = {
  not_member: [404, "No such member in this account."],
  last_owner: [422, "An account keeps at least one owner."],
};

const render = async (
  c: DashContext,
  message: { notice?: string; error?: string } = {},
  status: 200 | 403 | 404 | 422 | 429 = 200,
) =>
  c.html(
    <MembersPage
      session={c.var.session}
      members={await accountMembers(database(c.env), c.var.session.accountId)}
      {...message}
    />,
    status,
  );

const answer = (c: DashContext, outcome: string, done: string) => {
  const refused = OUTCOME_ERRORS[outcome];
  return refused ? render(c, { error: refused[1] }, refused[0] as 404 | 422) : render(c, { notice: done });
};

const inviteForm = z.object({ email: z.email().max(254), role: z.enum(["owner", "member"]).default("member") });

/** Members: everyone sees them; owners invite, remove and change roles. */
export const memberRoutes = new Hono<DashEnv>()
  .get("/members", (c) => render(c))
  .post("/members", ownerOnly(), async (c) => {
    const parsed = inviteForm.safeParse(await c.req.parseBody());
    if (!parsed.success) return render(c, { error: "Enter a valid email address." }, 422);
    const email = parsed.data.email.toLowerCase();
    const { accountId, email: invitedBy } = c.var.session;
    const invited = await inviteMember(c.env, { accountId, email, role: parsed.data.role, invitedBy });
    switch (invited.outcome) {
      case "invited":
        return render(c, { notice: `Invitation sent to ${email}.` });
      case "already_member":
        return render(c, { error: `${email} is already a member.` }, 422);
      case "unconfirmed":
        return render(c, { error: "Confirm the account's email address before inviting members." }, 403);
      case "limited":
        c.header("Retry-After", String(invited.retryAfterSeconds));
        return render(c, { error: invited.message }, 429);
    }
  })
  .post("/members/:userId/remove", ownerOnly(), async (c) =>
    answer(c, await removeMember(c.env, c.var.session.accountId, c.req.param("userId")), "The member is removed."),
  )
  .post("/members/:userId/role", ownerOnly(), async (c) => {
    const role = z.enum(["owner", "member"]).safeParse((await c.req.parseBody()).role);
    if (!role.success) return render(c, { error: "Choose owner or member." }, 422);
    return answer(
      c,
      await setMemberRole(c.env, c.var.session.accountId, c.req.param("userId"), role.data),
      "The role is changed.",
    );
  });
