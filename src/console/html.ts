/**
 * The console's HTML: the page frame, and small pieces every page uses, all written with the library's
 * one auto-escaping template (`html` of internal/html.ts), so no page escapes anything by hand.
 */
import { type Html, html } from '../internal/html.js';
import { type Branding, siteHeader, stylesheetLink } from '../internal/look/page.js';

/** A time, in UTC and marked so (`2026-01-31 14:05:09 UTC`), as the console's time filters read it. */
export function time(iso: string | null | undefined): Html | string {
  if (!iso) return '—';
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}</time>`;
}

/** The names of the console's two files (content-hashed, see assets.ts), and the one look's. */
export interface AssetNames {
  readonly css: string;
  readonly js: string;
  /** The host's name and logo, and the look's style sheet under `<base>/assets/`. */
  readonly look: Branding;
}

/** What the frame of every page needs. */
export interface Frame {
  readonly base: string;
  readonly title: string;
  readonly assets: AssetNames;
  /** Absent when nobody is signed in (the sign-in page, a path nothing serves). */
  readonly nav?: {
    /** The section the page belongs to, marked as the current one; none for a page of no section. */
    readonly current?: string;
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
export function page(frame: Frame, body: Html): string {
  const { base, nav } = frame;
  const links =
    nav &&
    html`<nav aria-label="Console"><ul>${nav.sections.map(
      (path) =>
        html`<li><a href="${base}/${path}"${nav.current === path && html` aria-current="page"`}>${LABELS[path] ?? path}</a></li>`,
    )}</ul>
      <form method="post" action="${base}/sign-out" class="sign-out">${csrfField(nav.csrf)}
        <span>${nav.who}</span> <button type="submit">Sign out</button></form></nav>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · ${frame.assets.look.name} console</title>
${stylesheetLink(frame.assets.look)}
<link rel="stylesheet" href="${base}/assets/${frame.assets.css}">
<script src="${base}/assets/${frame.assets.js}" defer></script>
</head>
<body class="look">
<a class="skip" href="#main">Skip to content</a>
${siteHeader({ ...frame.assets.look, name: `${frame.assets.look.name} console` }, { home: `${base}/`, after: links })}
<main id="main">
<h1>${frame.title}</h1>
${frame.notice && html`<p class="notice" role="status">${frame.notice}</p>`}${frame.error && html`<p class="error" role="alert">${frame.error}</p>`}
${body}
</main>
</body>
</html>`.text;
}

/** The hidden field every form that changes something carries. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** A one-button form that posts to `action` (delete, revoke, replay …). */
export function button(
  action: string,
  label: string,
  csrf: string,
  options: { danger?: boolean } = {},
): Html {
  return html`<form method="post" action="${action}" class="inline">${csrfField(csrf)}<button type="submit"${options.danger && html` class="danger"`}>${label}</button></form>`;
}

/** A table with a caption (for screen readers), its header row and rows of cells. */
export function table(
  caption: string,
  head: readonly string[],
  rows: readonly (readonly (Html | string | number)[])[],
): Html {
  if (!rows.length) return html`<p>${caption}: none yet.</p>`;
  return html`<div class="scroll"><table><caption>${caption}</caption><thead><tr>${head.map(
    (h) => html`<th scope="col">${h}</th>`,
  )}</tr></thead><tbody>${rows.map(
    (r) => html`<tr>${r.map((cell, i) => html`<td data-label="${head[i] ?? ''}">${cell}</td>`)}</tr>`,
  )}</tbody></table></div>`;
}

/**
 * A value shown once (a new secret or key), with the warning that it will not be shown again, and a
 * Copy button the console's script reveals (without script the value stays selectable text).
 */
export function shownOnce(label: string, value: string): Html {
  return html`<div class="once" role="status"><p><strong>${label}</strong> — copy it now: it is not shown again.</p>
<p class="secret-line"><code class="secret">${value}</code> <button type="button" class="copy secondary" hidden>Copy</button></p></div>`;
}

/** Checkboxes for a set of values, some ticked. */
export function checkboxes(
  name: string,
  legend: string,
  values: readonly string[],
  ticked: ReadonlySet<string>,
): Html {
  return html`<fieldset><legend>${legend}</legend>${values.map(
    (v, i) =>
      html`<label class="check"><input type="checkbox" name="${name}" value="${v}" id="${name}-${i}"${ticked.has(v) && html` checked`}> ${v}</label>`,
  )}</fieldset>`;
}
