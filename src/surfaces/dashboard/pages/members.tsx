import { INVITATION_VALID_MS, memberStatus } from "../../../db/members";
import type { DashboardSession } from "../session";
import { Csrf, Layout } from "./layout";

export interface Member {
  userId: string;
  email: string;
  role: "owner" | "member";
  createdAt: number;
  acceptedAt: number | null;
}

/** An invitation's standing beside the role: pending until its lapse date, or lapsed. */
function standing(m: Member) {
  const status = memberStatus(m);
  if (status === "accepted") return null;
  if (status === "lapsed") return " (invitation lapsed)";
  return ` (invited, until ${new Date(m.createdAt + INVITATION_VALID_MS).toISOString().slice(0, 10)})`;
}

export function MembersPage({
  session,
  members,
  notice,
  error,
}: {
  session: DashboardSession;
  members: Member[];
  notice?: string;
  error?: string;
}) {
  const owner = session.role === "owner";
  return (
    <Layout title="Members" session={session} path="/dashboard/members">
      {notice ? <p class="notice">{notice}</p> : null}
      {error ? <p class="notice warn">{error}</p> : null}
      <section>
        <table>
          <thead>
            <tr>
              <th>Email</th>
              <th>Role</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr>
                <td>
                  {m.email}
                  {m.userId === session.userId ? " (you)" : ""}
                </td>
                <td>
                  {m.role}
                  {standing(m)}
                </td>
                <td>
                  {owner ? (
                    <>
                      <form method="post" action={`/dashboard/members/${m.userId}/role`} class="inline">
                        <Csrf token={session.csrfToken} />
                        <input type="hidden" name="role" value={m.role === "owner" ? "member" : "owner"} />
                        <button class="quiet" type="submit">
                          {m.role === "owner" ? "Make member" : "Make owner"}
                        </button>
                      </form>{" "}
                      <form method="post" action={`/dashboard/members/${m.userId}/remove`} class="inline">
                        <Csrf token={session.csrfToken} />
                        <button class="quiet" type="submit">
                          Remove
                        </button>
                      </form>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p class="muted">
          A removed member's keys stop working for good (403 KEY_ACCOUNT_MISMATCH, even if the address is invited again)
          and their sessions end. An invited address receives no account mail until it accepts by signing in; an
          invitation not accepted within 7 days lapses.
        </p>
      </section>
      {owner ? (
        <section>
          <h2>Invite a member</h2>
          <form method="post" action="/dashboard/members">
            <Csrf token={session.csrfToken} />
            <label for="invite_email">Email address</label>
            <input id="invite_email" name="email" type="email" required />
            <label for="invite_role">Role</label>
            <select id="invite_role" name="role">
              <option value="member">member</option>
              <option value="owner">owner</option>
            </select>
            <p>
              <button type="submit">Send invitation</button>
            </p>
          </form>
        </section>
      ) : null}
    </Layout>
  );
}
