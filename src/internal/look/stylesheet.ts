/**
 * The one style sheet of every page the library serves (sign-in and consent, the console, the REST
 * reference, problem pages, GraphiQL's frame): tokens as custom properties, a type scale, buttons
 * (primary, `.secondary`, `.danger`), forms, focus, tables that become cards on narrow screens, and
 * dark mode by `prefers-color-scheme`. Element rules apply inside `.look` (the `body` of our pages)
 * and weigh nothing (`:where`), so a page's own classes, and GraphiQL's, always win.
 */
export const STYLESHEET = `
:root {
  color-scheme: light dark;
  --accent: #0b57d0; --on-accent: #fff; --danger: #b3261e;
  --ink: #1b1f24; --muted: #4a5360; --line: #c9d0d8; --page: #fff; --bg: #f4f6f8;
  --bad: #a4161a; --good: #1b6e2a; --warn: #7a4f00; --focus: #1a5fb4;
  --link: var(--accent);
  --font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  --step--1: 0.875rem; --step-0: 1rem; --step-1: 1.15rem; --step-2: 1.35rem; --step-3: 1.75rem;
  --radius: 6px; --gap: 16px; --field: 28rem;
}
@media (prefers-color-scheme: dark) {
  :root {
    --ink: #e6e9ee; --muted: #aab3bf; --line: #46505c; --page: #15181c; --bg: #1f242a;
    --bad: #ff9b93; --good: #7fd891; --warn: #f2c069; --focus: #8ab4f8;
    --link: color-mix(in srgb, var(--accent) 35%, #fff);
  }
}
* { box-sizing: border-box; }
:where(.look) { margin: 0; font: var(--step-0)/1.5 var(--font); color: var(--ink); background: var(--page); overflow-wrap: anywhere; }
:where(.look) :where(a) { color: var(--link); }
:where(.look) :where(h1) { font-size: var(--step-3); line-height: 1.25; margin: 8px 0 16px; }
:where(.look) :where(h2) { font-size: var(--step-2); line-height: 1.3; margin: 28px 0 8px; }
:where(.look) :where(h3) { font-size: var(--step-1); margin: 20px 0 6px; }
:where(.look) :where(small, .muted) { color: var(--muted); }
:where(.look) :where(code, pre, kbd) { font-family: var(--mono); font-size: 0.9em; }
:where(.look) :where(pre) { background: var(--bg); border: 1px solid var(--line); border-radius: var(--radius); padding: 8px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
:where(.look) :where(main) { display: block; padding: var(--gap); max-width: 70rem; margin: 0 auto; }
:where(.look) :where(main.narrow) { max-width: 34rem; padding-top: 32px; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--page); padding: 4px 8px; z-index: 10; }

/* The header every page starts with: the host's logo and name. */
.site-header { background: var(--bg); color: var(--ink); border-bottom: 1px solid var(--line); padding: 8px var(--gap); display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: center; font: var(--step-0)/1.5 var(--font); }
.site-name { margin: 0; font-weight: 700; display: flex; align-items: center; gap: 8px; }
.site-name a { color: var(--ink); text-decoration: none; }
.site-logo { height: 28px; width: auto; max-width: 120px; }

/* Buttons: one primary action, the others secondary, destructive ones red. */
:where(.look) :where(button), .button {
  font: inherit; display: inline-block; padding: 8px 16px; min-height: 40px; border-radius: var(--radius); cursor: pointer;
  border: 1px solid var(--accent); background: var(--accent); color: var(--on-accent); text-decoration: none; font-weight: 600; line-height: 1.4;
}
:where(.look) :where(button.secondary), .button.secondary { background: transparent; color: var(--link); border-color: var(--line); }
:where(.look) :where(button.danger), .button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
:where(.look) :where(button:hover) { filter: brightness(1.08); }
.actions { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: center; margin: 16px 0; }

/* Forms: labels above fields, fields as wide as the form up to a readable measure. */
:where(.look) :where(label) { font-weight: 600; }
:where(.look) :where(input, select, textarea) { font: inherit; color: var(--ink); background: var(--page); padding: 6px 8px; border: 1px solid #6b7480; border-radius: var(--radius); max-width: 100%; }
:where(.look) :where(input:not([type]), input[type=text], input[type=email], input[type=password], input[type=url], input[type=search], input[type=number], input[type=datetime-local], select, textarea) { width: 100%; max-width: var(--field); min-height: 40px; }
:where(.look) :where(input[type=checkbox], input[type=radio]) { width: 1.1em; height: 1.1em; accent-color: var(--accent); vertical-align: -2px; }
:where(.look) :where(fieldset) { border: 1px solid var(--line); border-radius: var(--radius); margin: 12px 0; padding: 8px 12px; }
:where(.look) :where(legend) { font-weight: 600; padding: 0 4px; }
.field { margin: 12px 0; } .field label { display: block; margin-bottom: 4px; } .field label + br { display: none; }
label.check { font-weight: 400; display: inline-block; margin-right: 16px; }
.checks { list-style: none; padding: 0; margin: 0; } .checks li { margin: 8px 0; } .checks label { font-weight: 400; }

/* Messages. */
.notice { border-left: 4px solid var(--good); background: var(--bg); padding: 8px 12px; }
.error { border-left: 4px solid var(--bad); background: var(--bg); padding: 8px 12px; }
.warning { border-left: 4px solid var(--warn); background: var(--bg); padding: 8px 12px; }

/* Tables; on narrow screens each row a card of labelled lines (cells carry data-label). */
.scroll { overflow-x: auto; }
:where(.look) :where(table) { border-collapse: collapse; width: 100%; }
:where(.look) :where(caption) { text-align: left; font-weight: 600; padding: 4px 0; }
:where(.look) :where(th, td) { text-align: left; border-bottom: 1px solid var(--line); padding: 6px 8px; vertical-align: top; }
:where(.look) :where(dl) { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
:where(.look) :where(dt) { font-weight: 600; } :where(.look) :where(dd) { margin: 0; }
@media (max-width: 640px) {
  :where(.look) :where(table, caption, tbody, tr, td) { display: block; }
  :where(.look) :where(thead tr, tr.head) { position: absolute; left: -9999px; }
  :where(.look) :where(tr) { border-bottom: 1px solid var(--line); padding: 6px 0; }
  :where(.look) :where(td) { border: 0; padding: 2px 0; }
  :where(.look) :where(td[data-label]:not([data-label=""]))::before { content: attr(data-label) ": "; font-weight: 600; }
  :where(.look) :where(dl) { grid-template-columns: 1fr; } :where(.look) :where(dd) { margin-bottom: 8px; }
  .site-header { flex-direction: column; align-items: flex-start; }
}

/* Reference pages (the REST reference): a sticky contents column beside the text, folded on a phone. */
.with-toc { display: grid; grid-template-columns: 17rem minmax(0, 1fr); gap: 32px; max-width: 84rem; margin: 0 auto; padding: 0 var(--gap); }
.with-toc > main { padding-left: 0; padding-right: 0; margin: 0; max-width: none; }
.toc { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow-y: auto; padding: 16px 0; font-size: var(--step--1); }
.toc summary { font-size: var(--step-0); }
.toc ul { list-style: none; margin: 0 0 12px; padding: 0; } .toc li { margin: 2px 0; }
.toc h2 { font-size: var(--step-0); margin: 12px 0 4px; } .toc h3 { font-size: var(--step--1); margin: 12px 0 4px; text-transform: uppercase; letter-spacing: .04em; }
.toc a { display: grid; grid-template-columns: 3.75rem minmax(0, 1fr); text-decoration: none; overflow-wrap: break-word; } .toc a:hover { text-decoration: underline; }
@media (max-width: 900px) { .with-toc { display: block; } .toc { position: static; max-height: none; border-bottom: 1px solid var(--line); } }
.op { border: 1px solid var(--line); border-radius: var(--radius); margin: 16px 0; padding: 8px 16px; scroll-margin-top: 8px; }
.op h3 { margin: 4px 0; font-size: var(--step-0); font-family: var(--mono); }
.method { display: inline-block; min-width: 4.5rem; font-weight: 700; font-family: var(--mono); }
.method-get { color: var(--good); } .method-delete, .deprecated { color: var(--bad); } .method-post, .method-put, .method-patch { color: var(--warn); }
details { margin: 8px 0; } summary { cursor: pointer; font-weight: 600; }
table.params td:first-child { width: 40%; } table.params small { white-space: nowrap; }
@media (max-width: 640px) { table.params td:first-child { width: auto; } }
.try .fields { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: 0 16px; }
.try output { display: block; }

/* GraphiQL's page: our header above, GraphiQL filling the rest. */
body.graphiql-frame { height: 100vh; display: flex; flex-direction: column; margin: 0; }
body.graphiql-frame #graphiql { height: auto; flex: 1 1 0; min-height: 0; }
.graphiql-frame .site-header { padding: 4px 16px; }
`;
