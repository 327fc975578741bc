/**
 * The widget's only styles. Every colour and size is a CSS variable with a default, so a site themes it by setting
 * `--verify-*` on any ancestor (docs/widget.md lists them).
 */
export const STYLES = `
.verify-status{margin-top:var(--verify-gap,.25rem);font-size:var(--verify-font-size,.875em);line-height:1.4;
color:var(--verify-text,inherit)}
.verify-ok{color:var(--verify-ok,#1a7f37)}
.verify-warn{color:var(--verify-warn,#9a6700)}
.verify-bad{color:var(--verify-bad,#cf222e)}
.verify-suggestion{font:inherit;padding:0;border:0;background:none;cursor:pointer;text-decoration:underline;
color:var(--verify-link,#0969da)}
.verify-suggestion:focus-visible{outline:2px solid var(--verify-focus,#0969da);outline-offset:2px;border-radius:2px}
`.replace(/\n/g, "");
