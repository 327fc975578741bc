import type { DashboardSession } from "../session";
import { FieldErrors } from "./field-errors";
import { Csrf, Layout } from "./layout";

/** One product's sending policy as the API's `GET /{product}/policy` shows it (null: none). */
export interface PolicySection {
  product: string;
  policy: { rules: unknown; created_at: string; updated_at: string } | null;
}

export interface PoliciesPageProps {
  session: DashboardSession;
  sections: PolicySection[];
  notice?: string;
  /** A refused form: its product, the text as sent, and the API's field errors. */
  refused?: { product: string; text: string; errors: Record<string, string[]> };
}

function Section({
  section,
  csrf,
  refused,
}: {
  section: PolicySection;
  csrf: string;
  refused?: PoliciesPageProps["refused"];
}) {
  const { product, policy } = section;
  const text = refused?.text ?? JSON.stringify(policy?.rules ?? {}, null, 2);
  return (
    <section id={`policy-${product}`}>
      <h2>{product}</h2>
      {policy ? (
        <p class="muted">{`Set ${policy.created_at}, last changed ${policy.updated_at}.`}</p>
      ) : (
        <p class="muted">No policy: answers carry policy: null.</p>
      )}
      <FieldErrors errors={refused?.errors} />
      <form method="post" action={`/dashboard/policies/${product}`}>
        <Csrf token={csrf} />
        <label for={`rules-${product}`}>
          Rules (JSON, the body of PUT /{product}/policy; replaces the whole policy)
        </label>
        <textarea id={`rules-${product}`} name="rules" rows={8}>
          {text}
        </textarea>
        <p>
          <button type="submit">Set the policy</button>
        </p>
      </form>
      {policy ? (
        <form method="post" action={`/dashboard/policies/${product}/clear`}>
          <Csrf token={csrf} />
          <button class="quiet" type="submit">
            Clear the policy
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** Sending policies: per product, the rules that turn each answer into send, review or block; never a price. */
export function PoliciesPage({ session, sections, notice, refused }: PoliciesPageProps) {
  return (
    <Layout title="Sending policies" session={session} path="/dashboard/policies">
      <p class="muted">
        A policy stamps <code>policy: {"{action, rules_hit}"}</code> on every answer of the product from the next lookup
        (bulk CSVs: <code>policy_action</code>, <code>policy_rules_hit</code>). It never changes what a lookup costs.
      </p>
      {notice ? <p class="notice">{notice}</p> : null}
      {sections.map((section) => (
        <Section
          section={section}
          csrf={session.csrfToken}
          refused={refused?.product === section.product ? refused : undefined}
        />
      ))}
    </Layout>
  );
}
