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
.verify-listbox{list-style:none;margin:var(--verify-gap,.25rem) 0 0;padding:0;
border:1px solid var(--verify-border,#d0d7de);
border-radius:6px;background:var(--verify-bg,#fff);box-shadow:0 4px 12px rgba(0,0,0,.08)}
.verify-option{padding:.375rem .625rem;cursor:pointer}
.verify-option[aria-selected="true"],.verify-option:hover{background:var(--verify-active,#ddf4ff)}
.verify-count{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.verify-suggestion:focus-visible{outline:2px solid var(--verify-focus,#0969da);outline-offset:2px;border-radius:2px}
`.replace(/\n/g, "");
