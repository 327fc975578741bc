import type { DashboardSession } from "../session";
import { Layout } from "./layout";

/** One product's examples: the single lookup's path, and its declared samples with what each answers. */
export interface ExampleSection {
  product: string;
  path: string | null;
  samples: { value: unknown; answer: string | null }[];
}

/** A value as a request body carries it: a string as is, anything with parts as JSON. */
const spelled = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** Copies a text with one click: the button carries the text; the page script (copy.js) writes it to the clipboard. */
const Copy = ({ text }: { text: string }) => (
  <button class="quiet" type="button" data-copy={text}>
    Copy
  </button>
);

/** The sandbox key and every product's sample and test values, read from the products' own declarations. */
export function ExamplesPage({
  session,
  sections,
  sandboxKey,
}: {
  session: DashboardSession;
  sections: ExampleSection[];
  sandboxKey: string;
}) {
  return (
    <Layout
      title="Sandbox and test values"
      session={session}
      path="/dashboard/examples"
      script="/dashboard/assets/copy.js"
    >
      <section>
        <p>
          These values always give the same documented answers, free, with any secret key of the account, and are the
          only values the public sandbox key answers (when the operator has the sandbox on):
        </p>
        <p class="run-now">
          <code id="sandbox-key">{sandboxKey}</code> <Copy text={sandboxKey} />
        </p>
      </section>
      {sections.map((s) => (
        <section id={`examples-${s.product}`}>
          <h2>{s.product}</h2>
          {s.path ? <p class="muted">{`POST /api/v1${s.path}`}</p> : null}
          <table class="copy-table">
            <thead>
              <tr>
                <th>Value</th>
                <th>Answers</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {s.samples.map(({ value, answer }) => (
                <tr>
                  <td>
                    <code class="sample">{spelled(value)}</code>
                  </td>
                  <td class="answer">{answer ?? ""}</td>
                  <td>
                    <Copy text={spelled(value)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </Layout>
  );
}
