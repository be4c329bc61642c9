/** The console's HTML: the page frame, and small pieces every page uses. */
import { escapeHtml } from '../internal/html.js';

/** Escapes text for HTML content and attribute values (the library's one escaper). */
export const esc = escapeHtml;

/** A time: UTC in the HTML, rewritten into the operator's time zone by the page's script. */
export function time(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `<time datetime="${esc(iso)}">${esc(iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'))}</time>`;
}

/** What the frame of every page needs. */
export interface Frame {
  readonly base: string;
  readonly title: string;
  readonly assets: { readonly css: string; readonly js: string };
  /** Absent on the sign-in page. */
  readonly nav?: {
    readonly current: string;
    readonly csrf: string;
    readonly who: string;
    /** The sections to link, in order. */
    readonly sections: readonly string[];
  };
  readonly notice?: string;
  readonly error?: string;
}

const LABELS: Readonly<Record<string, string>> = {
  webhooks: 'Webhooks',
  'event-types': 'Event types',
  'api-keys': 'API keys',
  'oauth-clients': 'OAuth clients',
  grants: 'Grants',
  activity: 'Live activity',
  me: 'Connected apps',
};

/** A whole page: skip link, navigation, one `main`, a notice or an error announced to screen readers. */
export function page(frame: Frame, body: string): string {
  const { base, nav } = frame;
  const links = nav
    ? `<nav aria-label="Console"><ul>${nav.sections
        .map(
          (path) =>
            `<li><a href="${base}/${path}"${nav.current === path ? ' aria-current="page"' : ''}>${LABELS[path] ?? path}</a></li>`,
        )
        .join('')}</ul>
      <form method="post" action="${base}/sign-out" class="sign-out">${csrfField(nav.csrf)}
        <span>${esc(nav.who)}</span> <button type="submit">Sign out</button></form></nav>`
    : '';
  const notice = frame.notice ? `<p class="notice" role="status">${esc(frame.notice)}</p>` : '';
  const error = frame.error ? `<p class="error" role="alert">${esc(frame.error)}</p>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(frame.title)} · Switchboard console</title>
<link rel="stylesheet" href="${base}/assets/${frame.assets.css}">
<script src="${base}/assets/${frame.assets.js}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><p class="brand"><a href="${base}/">Switchboard console</a></p>${links}</header>
<main id="main">
<h1>${esc(frame.title)}</h1>
${notice}${error}
${body}
</main>
</body>
</html>`;
}

/** The hidden field every form that changes something carries. */
export function csrfField(token: string): string {
  return `<input type="hidden" name="_csrf" value="${esc(token)}">`;
}

/** A one-button form that posts to `action` (delete, revoke, replay …). */
export function button(
  action: string,
  label: string,
  csrf: string,
  options: { danger?: boolean } = {},
): string {
  return `<form method="post" action="${esc(action)}" class="inline">${csrfField(csrf)}<button type="submit"${options.danger ? ' class="danger"' : ''}>${esc(label)}</button></form>`;
}

/** A table with a caption (for screen readers), its header row and rows of cells (already HTML). */
export function table(
  caption: string,
  head: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  if (!rows.length) return `<p>${esc(caption)}: none yet.</p>`;
  return `<div class="scroll"><table><caption>${esc(caption)}</caption><thead><tr>${head
    .map((h) => `<th scope="col">${esc(h)}</th>`)
    .join('')}</tr></thead><tbody>${rows
    .map(
      (r) => `<tr>${r.map((cell, i) => `<td data-label="${esc(head[i] ?? '')}">${cell}</td>`).join('')}</tr>`,
    )
    .join('')}</tbody></table></div>`;
}

/** A value shown once (a new secret or key), with the warning that it will not be shown again. */
export function shownOnce(label: string, value: string): string {
  return `<div class="once" role="status"><p><strong>${esc(label)}</strong> — copy it now: it is not shown again.</p>
<p><code class="secret">${esc(value)}</code></p></div>`;
}

/** Checkboxes for a set of values, some ticked. */
export function checkboxes(
  name: string,
  legend: string,
  values: readonly string[],
  ticked: ReadonlySet<string>,
): string {
  return `<fieldset><legend>${esc(legend)}</legend>${values
    .map(
      (v, i) =>
        `<label class="check"><input type="checkbox" name="${esc(name)}" value="${esc(v)}" id="${esc(name)}-${i}"${ticked.has(v) ? ' checked' : ''}> ${esc(v)}</label>`,
    )
    .join('')}</fieldset>`;
}
