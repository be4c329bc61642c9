/**
 * Pieces the webhook pages share: the event-type picker that shows patterns as they are, the health of
 * an endpoint in words and as an hourly chart drawn on the server, and UTC times typed into a filter.
 */
import { type Html, html } from '../../internal/html.js';
import type { WebhookEndpointSummary, WebhookHour } from '../../webhooks/endpoint-health.js';
import { time } from '../html.js';

/**
 * Every pattern an endpoint can subscribe to, in the order a reader looks for them: `*`, each
 * resource's wildcard (`order.*`), the single kinds, and any pattern `current` holds that none of these
 * is (so saving the form never drops it).
 */
export function eventPatterns(catalogue: readonly string[], current: readonly string[] = []): string[] {
  const wildcards = [...new Set(catalogue.map((type) => `${type.slice(0, type.indexOf('.'))}.*`))];
  const known = ['*', ...wildcards, ...catalogue];
  const listed = new Set(known);
  return [...known, ...current.filter((pattern) => !listed.has(pattern))];
}

/**
 * The event-type picker: every pattern a checkbox, those it holds ticked, grouped by kind; `error`
 * (a refused form's) beside it.
 */
export function eventTypePicker(
  legend: string,
  catalogue: readonly string[],
  ticked: Iterable<string>,
  error?: string,
): Html {
  const held = new Set(ticked);
  const patterns = eventPatterns(catalogue, [...held]);
  const box = (value: string, i: number) =>
    html`<label class="check"><input type="checkbox" name="eventTypes" value="${value}" id="eventTypes-${i}"${held.has(value) && html` checked`}> ${value}</label>`;
  const wild = patterns.filter((p) => p === '*' || p.endsWith('.*'));
  const single = patterns.filter((p) => !(p === '*' || p.endsWith('.*')));
  return html`<fieldset${error && html` class="has-error" aria-describedby="eventTypes-error"`}><legend>${legend}</legend>
${error && html`<p class="field-error" id="eventTypes-error">${error}</p>`}<p class="hint"><code>*</code> is every event; <code>order.*</code> every event of orders, kinds added later included.</p>
<div>${wild.map((p) => box(p, patterns.indexOf(p)))}</div>
<div>${single.map((p) => box(p, patterns.indexOf(p)))}</div>
</fieldset>`;
}

/** A rate from 0 to 1 as a percentage with at most one decimal; `—` for none. */
export function percent(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 1000) / 10}%`;
}

/** An endpoint's health in a list cell: success rate of its attempts and its latest attempt. */
export function healthCell(summary: WebhookEndpointSummary | undefined): Html | string {
  if (!summary) return '—';
  const { lastAttempt: last } = summary;
  const attempts = summary.succeeded + summary.failed;
  const rate =
    attempts === 0
      ? 'no attempt in 24 h'
      : `${percent(summary.successRate)} of ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} in 24 h`;
  if (!last) return rate;
  const outcome = last.succeeded ? 'succeeded' : 'failed';
  return html`${rate}<br>last: <span class="status-${outcome}">${last.statusCode ?? outcome}</span> ${time(last.startedAt)}`;
}

const WIDTH = 240;
const HEIGHT = 60;

/**
 * Attempts per hour of the last 24 as an inline SVG (no script, nothing loaded; its classes colour
 * it), with the same numbers in a table for screen readers and anyone who wants them.
 */
export function hourlyChart(hours: readonly WebhookHour[]): Html {
  const most = Math.max(1, ...hours.map((h) => h.succeeded + h.failed));
  const slot = WIDTH / Math.max(1, hours.length);
  const bars = hours.map((h, i) => {
    const ok = (h.succeeded / most) * HEIGHT;
    const bad = (h.failed / most) * HEIGHT;
    const x = (i * slot + 1).toFixed(1);
    const w = Math.max(1, slot - 2).toFixed(1);
    return html`${h.succeeded > 0 && html`<rect class="ok" x="${x}" y="${(HEIGHT - ok).toFixed(1)}" width="${w}" height="${ok.toFixed(1)}"></rect>`}${h.failed > 0 && html`<rect class="bad" x="${x}" y="${(HEIGHT - ok - bad).toFixed(1)}" width="${w}" height="${bad.toFixed(1)}"></rect>`}`;
  });
  const total = hours.reduce((n, h) => n + h.succeeded + h.failed, 0);
  const failed = hours.reduce((n, h) => n + h.failed, 0);
  const summary = `Attempts per hour over the last 24 hours: ${total} in all, ${failed} failed.`;
  const rows = hours
    .filter((h) => h.succeeded + h.failed > 0)
    .map((h) => html`<tr><td>${time(h.start)}</td><td>${h.succeeded}</td><td>${h.failed}</td></tr>`);
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT + 1}" preserveAspectRatio="none" role="img" aria-label="${summary}"><line class="axis" x1="0" y1="${HEIGHT + 0.5}" x2="${WIDTH}" y2="${HEIGHT + 0.5}"></line>${bars}</svg>
<p class="legend">${summary} Green: succeeded, red: failed; oldest hour on the left.</p>
${
  rows.length > 0 &&
  html`<details><summary>The hours as a table</summary><div class="scroll"><table><caption>Attempts per hour (hour starting, UTC)</caption><thead><tr><th scope="col">Hour from</th><th scope="col">Succeeded</th><th scope="col">Failed</th></tr></thead><tbody>${rows}</tbody></table></div></details>`
}`;
}

/**
 * A time typed into a filter, read as UTC: `2026-01-31 14:05`, `2026-01-31T14:05:09`, a time copied
 * from a table (`2026-01-31 14:05:09 UTC`), or ISO-8601 with its offset. Null when it is none of these.
 */
export function utcInput(value: string): string | null {
  const text = value
    .trim()
    .replace(/\s*UTC$/i, '')
    .replace(' ', 'T');
  const local = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(\.\d+)?)?$/.exec(text);
  const iso = local ? `${local[1]}T${local[2]}${local[3] ?? ':00'}Z` : text;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(iso)) return null;
  return Number.isNaN(Date.parse(iso)) ? null : new Date(Date.parse(iso)).toISOString();
}

/** What a UTC time filter field accepts, as its hint. */
export const UTC_HINT = 'UTC, as the tables show it: 2026-01-31 14:05';
