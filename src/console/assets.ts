/**
 * The console's files besides its pages and the one look's style sheet: its own few style rules and a
 * small script (the live activity feed; times stay in UTC). Served from the console's own
 * path with content-hashed names, so the CSP can be `'self'` and caches can keep them forever.
 */
import { asset } from '../internal/look/asset.js';

const CSS = `
/* The console's own rules; everything else is the one look (internal/look), linked before this file. */
.site-header nav { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 24px; flex: 1; }
.site-header nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
.site-header nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
.sign-out { margin-left: auto; color: var(--muted); }
.site-header button { padding: 4px 12px; min-height: 32px; background: transparent; color: var(--link); border-color: var(--line); }
main { margin: 0; }
form.inline { display: inline; }
button { padding: 4px 12px; min-height: 36px; }
.once { border: 2px solid var(--good); padding: 8px 12px; } .secret { word-break: break-all; }
.status-succeeded { color: var(--good); font-weight: 600; } .status-dead, .status-failed { color: var(--bad); font-weight: 600; }
.status-pending { color: var(--muted); font-weight: 600; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; }
.filters input, .filters select { width: auto; }
.pager { display: flex; gap: 16px; margin: 8px 0; }
#events li { margin: 4px 0; }
/* Webhook pages: a neutral notice, the exact body beside its pretty view, the hourly chart. */
.info { border-left: 4px solid var(--muted); background: var(--bg); padding: 8px 12px; }
.pair { display: grid; gap: 8px 16px; } .pair > div { min-width: 0; }
@media (min-width: 900px) { .pair { grid-template-columns: 1fr 1fr; } }
.chart { display: block; width: 100%; max-width: 560px; height: 72px; }
.chart .ok { fill: var(--good); } .chart .bad { fill: var(--bad); } .chart .axis { stroke: var(--line); }
.legend { color: var(--muted); font-size: 0.9em; margin: 4px 0; }
@media (max-width: 640px) { .sign-out { margin-left: 0; } }
`;

const JS = `
"use strict";
(function () {
  // Times stay in UTC, written as the server writes them, so a time copied from a table filters the
  // window it shows (the filters read UTC too).
  function utc(iso) { return iso.replace('T', ' ').replace(/[.][0-9]+Z$|Z$/, ' UTC'); }
  document.addEventListener('DOMContentLoaded', function () {
    var list = document.getElementById('events');
    if (list && window.EventSource) {
      var source = new EventSource(list.getAttribute('data-stream'));
      source.addEventListener('event', function (m) {
        var e = JSON.parse(m.data);
        var li = document.createElement('li');
        var when = document.createElement('time');
        when.setAttribute('datetime', e.occurredAt);
        when.textContent = utc(e.occurredAt);
        var code = document.createElement('code');
        code.textContent = e.type;
        li.append(when, ' ', code, ' ', e.summary);
        list.prepend(li);
        while (list.children.length > 100) list.lastElementChild.remove();
      });
    }
  });
})();
`;

/**
 * Forms, confirmations and secrets (forms.ts, confirm.ts, shownOnce): errors beside their fields, and
 * table columns that keep their words whole (a name is not broken letter by letter to make room).
 */
const FORMS_CSS = `
.field-error { color: var(--bad); font-weight: 600; margin: 4px 0; }
.has-error input, .has-error textarea, fieldset.has-error { border-color: var(--bad); border-width: 2px; }
.hint { color: var(--muted); font-weight: 400; }
main table { overflow-wrap: break-word; } main th { white-space: nowrap; }
.keys .name { display: inline-block; min-width: 8ch; }
.scope-words { margin: 0; padding-left: 1.2em; }
.secret-line { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.secret-line button[hidden] { display: none; }
.choices label.check { display: block; margin: 6px 0; }
td .button { white-space: nowrap; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

/** The Copy button beside a secret shown once: revealed by the script, as it needs the script. */
const COPY_JS = `
"use strict";
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('.once button.copy').forEach(function (button) {
    var code = button.parentElement.querySelector('code.secret');
    button.hidden = false;
    button.addEventListener('click', function () {
      var done = function () { button.textContent = 'Copied'; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(code.textContent).then(done);
        return;
      }
      var range = document.createRange();
      range.selectNodeContents(code);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      if (document.execCommand('copy')) done();
    });
  });
});
`;

export const STYLE = asset('console', 'css', 'text/css; charset=utf-8', CSS + FORMS_CSS);
export const SCRIPT = asset('console', 'js', 'text/javascript; charset=utf-8', JS + COPY_JS);
