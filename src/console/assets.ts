/**
 * The console's only two files besides its pages: a style sheet and a small script (times in the
 * operator's zone, the live activity feed). Served from the console's own path with content-hashed
 * names, so the CSP can be `'self'` and caches can keep them forever.
 */

const CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5360; --line: #c9d0d8; --accent: #0b57d0; --bad: #a4161a; --good: #1b6e2a; --bg: #f7f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
a { color: var(--accent); }
a:focus, button:focus, input:focus, select:focus, textarea:focus { outline: 3px solid #7aa7f5; outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; }
header { background: var(--bg); border-bottom: 1px solid var(--line); padding: 8px 16px; display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: center; }
.brand { margin: 0; font-weight: 700; } .brand a { color: var(--ink); text-decoration: none; }
nav { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 24px; flex: 1; }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
.sign-out { margin-left: auto; color: var(--muted); }
main { padding: 16px; max-width: 1100px; overflow-wrap: anywhere; }
h1 { font-size: 1.6rem; margin: 8px 0 16px; } h2 { font-size: 1.25rem; margin-top: 28px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; } caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { text-align: left; border-bottom: 1px solid var(--line); padding: 6px 8px; vertical-align: top; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em; }
pre { background: var(--bg); border: 1px solid var(--line); padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
form.inline { display: inline; }
button { font: inherit; padding: 4px 12px; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; cursor: pointer; }
button.danger { background: var(--bad); border-color: var(--bad); }
button.secondary { background: #fff; color: var(--accent); }
input, select, textarea { font: inherit; padding: 4px 6px; border: 1px solid #6b7480; border-radius: 4px; max-width: 100%; }
label { font-weight: 600; } label.check { font-weight: 400; display: inline-block; margin-right: 16px; }
fieldset { border: 1px solid var(--line); margin: 8px 0; } .field { margin: 8px 0; }
.notice { border-left: 4px solid var(--good); background: #eef7ef; padding: 8px 12px; }
.error { border-left: 4px solid var(--bad); background: #fbeeee; padding: 8px 12px; }
.once { border: 2px solid var(--good); padding: 8px 12px; } .secret { word-break: break-all; }
.status-succeeded { color: var(--good); font-weight: 600; } .status-dead, .status-failed { color: var(--bad); font-weight: 600; }
.status-pending { color: var(--muted); font-weight: 600; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; } dt { font-weight: 600; } dd { margin: 0; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; }
.pager { display: flex; gap: 16px; margin: 8px 0; }
#events li { margin: 4px 0; }
@media (max-width: 640px) {
  /* Narrow screens: each row a block of labelled lines, so nothing hides off to the side. */
  table, caption, tbody, tr, td { display: block; } thead tr { position: absolute; left: -9999px; }
  tr { border-bottom: 1px solid var(--line); padding: 6px 0; } td { border: 0; padding: 2px 0; }
  td[data-label]:not([data-label=""])::before { content: attr(data-label) ": "; font-weight: 600; }
  header { flex-direction: column; align-items: flex-start; } .sign-out { margin-left: 0; }
}
`;

const JS = `
"use strict";
(function () {
  var format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  function localTimes(root) {
    root.querySelectorAll('time[datetime]').forEach(function (t) {
      var d = new Date(t.getAttribute('datetime'));
      if (!isNaN(d)) { t.textContent = format.format(d); t.title = t.getAttribute('datetime'); }
    });
  }
  document.addEventListener('DOMContentLoaded', function () {
    localTimes(document);
    document.querySelectorAll('form[data-confirm]').forEach(function (f) {
      f.addEventListener('submit', function (e) { if (!confirm(f.getAttribute('data-confirm'))) e.preventDefault(); });
    });
    var list = document.getElementById('events');
    if (list && window.EventSource) {
      var source = new EventSource(list.getAttribute('data-stream'));
      source.addEventListener('event', function (m) {
        var e = JSON.parse(m.data);
        var li = document.createElement('li');
        var when = document.createElement('time');
        when.setAttribute('datetime', e.occurredAt);
        var code = document.createElement('code');
        code.textContent = e.type;
        li.append(when, ' ', code, ' ', e.summary);
        localTimes(li);
        list.prepend(li);
        while (list.children.length > 100) list.lastElementChild.remove();
      });
    }
  });
})();
`;

/** A file served under the console's path. */
export interface Asset {
  readonly name: string;
  readonly type: string;
  readonly body: string;
}

export const STYLE = asset('console', 'css', 'text/css; charset=utf-8', CSS);
export const SCRIPT = asset('console', 'js', 'text/javascript; charset=utf-8', JS);

function asset(stem: string, extension: string, type: string, body: string): Asset {
  let hash = 2166136261;
  for (let i = 0; i < body.length; i++) hash = Math.imul(hash ^ body.charCodeAt(i), 16777619) >>> 0;
  return { name: `${stem}.${hash.toString(36)}.${extension}`, type, body };
}
