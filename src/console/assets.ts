/**
 * The console's files besides its pages and the one look's style sheet: its own few style rules and a
 * small script (times in the operator's zone, the live activity feed). Served from the console's own
 * path with content-hashed names, so the CSP can be `'self'` and caches can keep them forever.
 */
import { asset } from '../internal/look/asset.js';

const CSS = `
/* The console's own rules; everything else is the one look (internal/look), linked before this file. */
.site-header nav { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 24px; flex: 1; }
.site-header nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
.site-header nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
.sign-out { margin-left: auto; color: var(--muted); }
.site-header button { padding: 4px 12px; min-height: 32px; }
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
@media (max-width: 640px) { .sign-out { margin-left: 0; } }
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

export const STYLE = asset('console', 'css', 'text/css; charset=utf-8', CSS);
export const SCRIPT = asset('console', 'js', 'text/javascript; charset=utf-8', JS);
