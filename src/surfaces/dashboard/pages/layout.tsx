import type { Child } from "hono/jsx";
import type { DashboardSession } from "../session";

/**
 * The dashboard's pages, in navigation order. A later page (usage, try it, bulk runs, monitors) is one entry here and
 * one route file; nothing links to a page before it exists.
 */
export const NAV: { path: string; label: string; ownerOnly?: boolean }[] = [
  { path: "/dashboard/keys", label: "API keys" },
  { path: "/dashboard/usage", label: "Usage" },
  { path: "/dashboard/try", label: "Try it" },
  { path: "/dashboard/bulk", label: "Bulk runs" },
  { path: "/dashboard/examples", label: "Examples" },
  { path: "/dashboard/monitors", label: "Monitors" },
  { path: "/dashboard/policies", label: "Policies" },
  { path: "/dashboard/suppressions", label: "Suppressions" },
  { path: "/dashboard/members", label: "Members" },
  { path: "/dashboard/account", label: "Account" },
];

export const STYLES = `
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1d2330;background:#f6f7f9}
header{display:flex;gap:1rem;align-items:center;padding:.75rem 1.25rem;background:#1d2330;color:#fff}
header>strong{white-space:nowrap}header nav{display:flex;flex-wrap:wrap;gap:.25rem .8rem;flex:1 0 auto}
header a{color:#cfd6e4;text-decoration:none;white-space:nowrap}header a[aria-current=page]{color:#fff;font-weight:600}
header form{margin-left:auto;display:flex;gap:.5rem;align-items:center;white-space:nowrap}
header form .muted{color:#9aa3b5;font-size:13px;max-width:11rem;overflow:hidden;text-overflow:ellipsis}
main{max-width:60rem;margin:1.5rem auto;padding:0 1.5rem}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:1rem 1.25rem;margin-bottom:1.25rem}
table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #eceff3;vertical-align:top}
label{display:block;margin:.5rem 0 .2rem;font-weight:500}
input,select{font:inherit;padding:.35rem .5rem;border:1px solid #c4cad4;border-radius:4px}
input[type=text],input[type=email],input[type=number],input[type=password],textarea{width:100%}
textarea{font:13px/1.4 ui-monospace,monospace}
pre{background:#f3f5f8;padding:.6rem;overflow:auto;font-size:13px}
fieldset{border:1px solid #dde1e8;border-radius:4px;margin:.5rem 0}
button{font:inherit;padding:.4rem .9rem;border-radius:4px;border:1px solid #2f5bd3;background:#2f5bd3;
  color:#fff;cursor:pointer}
button.quiet{background:#fff;color:#2f5bd3}
.secret{font-family:ui-monospace,monospace;background:#fff8dc;padding:.5rem;border:1px dashed #c9a400;
  word-break:break-all}
.notice{padding:.6rem .9rem;border-radius:4px;background:#eef3ff;border:1px solid #c7d5fb}
.warn{background:#fff4e5;border-color:#f3c98b}[hidden]{display:none!important}
.chart{min-height:220px;margin:.5rem 0}.pager a{margin-right:1rem}.num{text-align:right}
.inline{display:inline}progress{width:100%;height:1.2rem}.muted{color:#5d6678}.narrow{max-width:26rem;margin:4rem auto}
.run-now{display:inline-flex;gap:.4rem;align-items:center;margin:0 0 .3rem}
label.check{display:inline;margin:0;font-weight:400;font-size:13px;white-space:nowrap}
.copy-table td{vertical-align:middle}.copy-table td:last-child{width:1%;white-space:nowrap;text-align:right}
.picker{display:flex;flex-wrap:wrap;gap:.4rem;margin:.25rem 0 .75rem}
.picker a{padding:.3rem .8rem;border:1px solid #c7d5fb;border-radius:999px;text-decoration:none;color:#2f5bd3}
.picker a[aria-current=page]{background:#2f5bd3;color:#fff;border-color:#2f5bd3}
section section{border:0;padding:0;margin:0 0 1rem}
`;

/** The CSRF token every state-changing form of a session carries back (src/surfaces/dashboard/security.ts). */
export const Csrf = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

export function Page({ title, children, stylesheet }: { title: string; children: Child; stylesheet?: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Verification API`}</title>
        <link rel="stylesheet" href="/dashboard/assets/app.css" />
        {stylesheet ? <link rel="stylesheet" href={stylesheet} /> : null}
        <link rel="icon" href="data:," />
      </head>
      <body>{children}</body>
    </html>
  );
}

/** A signed-in page: navigation, the account's address, sign out, then the page's own sections. */
export function Layout({
  title,
  session,
  path,
  children,
  script,
  stylesheet,
}: {
  title: string;
  session: DashboardSession;
  path: string;
  children: Child;
  script?: string;
  stylesheet?: string;
}) {
  return (
    <Page title={title} stylesheet={stylesheet}>
      <header>
        <strong>Verification API</strong>
        <nav>
          {NAV.filter((item) => !item.ownerOnly || session.role === "owner").map((item) => (
            <a href={item.path} aria-current={item.path === path ? "page" : undefined}>
              {item.label}
            </a>
          ))}
        </nav>
        <form method="post" action="/dashboard/sign-out">
          <Csrf token={session.csrfToken} />
          <span class="muted" title={session.email}>
            {session.email}
          </span>
          <button class="quiet" type="submit">
            Sign out
          </button>
        </form>
      </header>
      <main data-csrf={session.csrfToken}>
        <h1>{title}</h1>
        {children}
      </main>
      <script src="/dashboard/assets/local-time.js" />
      {script ? <script src={script} /> : null}
    </Page>
  );
}
