/**
 * A readable API reference rendered from the OpenAPI document: one self-contained HTML page, no
 * scripts and no CDN, so it works offline and under a strict Content-Security-Policy.
 */

import { type Html, html } from '../internal/html.js';
import type { OpenApiDocument } from './openapi.js';

type Json = Record<string, unknown>;

/**
 * A description as the OpenAPI document writes it (CommonMark), as HTML: the inline marks our
 * descriptions use — `code`, **strong**, *emphasis* — on text escaped first, so nothing in a
 * description can become markup of its own.
 */
const prose = (text: unknown): Html =>
  html`${String(text ?? '')
    .split(MARKS)
    .map((part, i) => (i % 2 ? marked(part) : part))}`;

/** `code`, **strong** and *emphasis* (a `*` that opens one follows a space, a parenthesis or nothing). */
const MARKS = /(`[^`]+`|\*\*[^*]+\*\*|(?<=^|[\s(])\*[^*\s][^*]*\*)/;

function marked(token: string): Html {
  if (token.startsWith('`')) return html`<code>${token.slice(1, -1)}</code>`;
  if (token.startsWith('**')) return html`<strong>${token.slice(2, -2)}</strong>`;
  return html`<em>${token.slice(1, -1)}</em>`;
}

/**
 * @example
 * new Response(renderReferencePage(document), { headers: { 'content-type': 'text/html' } });
 */
export function renderReferencePage(document: OpenApiDocument): string {
  const info = document.info as Json;
  const server = ((document.servers as Json[] | undefined)?.[0]?.url as string | undefined) ?? '';
  const paths = document.paths as Record<string, Record<string, Json>>;
  const schemas = ((document.components as Json).schemas ?? {}) as Record<string, Json>;
  const operations: Html[] = [];
  for (const [path, { servers, ...methods }] of Object.entries(paths)) {
    // A path with servers of its own (another mount's routes) is written from the host's root.
    for (const [method, op] of Object.entries(methods))
      operations.push(renderOperation(servers ? '' : server, path, method, op));
  }
  const components = Object.entries(schemas).map(
    ([name, schema]) =>
      // Focusable, so a keyboard can scroll a schema wider than the page.
      html`<section id="schema-${name}"><h3>${name}</h3><pre tabindex="0">${JSON.stringify(schema, null, 2)}</pre></section>\n`,
  );
  const title = `${String(info.title)} ${String(info.version)}`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2430}
h1{margin-bottom:0}.op{border:1px solid #d8dde6;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
.m{display:inline-block;min-width:4.5rem;font-weight:700;font-family:monospace}.GET{color:#0a7d32}.POST{color:#0b5cad}
.PUT{color:#8a5a00}.PATCH{color:#6b3fa0}.DELETE{color:#b3261e}code,pre{font-family:ui-monospace,monospace;font-size:13px}
pre{background:#f5f7fa;padding:.5rem;overflow:auto}table{border-collapse:collapse}td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #eee}
.dep{color:#b3261e;font-weight:700}
</style></head><body>
<h1>${String(info.title)}</h1><p>Version ${String(info.version)} · base path <code>${server}</code> ·
<a href="openapi.json">OpenAPI document</a></p><p>${prose(info.description)}</p>
<h2>Operations</h2>
${operations.map((op) => html`${op}\n`)}
<h2>Schemas</h2>
${components}
</body></html>`.text;
}

function renderOperation(server: string, path: string, method: string, op: Json): Html {
  const verb = method.toUpperCase();
  const security = (op.security as Json[] | undefined)?.[0];
  const scopes = security ? Object.values(security).flat().map(String) : [];
  const auth =
    op.security && (op.security as Json[]).length === 0
      ? 'public'
      : scopes.length
        ? html`scope <code>${scopes.join(', ')}</code>`
        : 'any authenticated caller';
  const parameters = ((op.parameters ?? []) as Json[]).map(
    (p) =>
      html`<tr><td><code>${String(p.name)}</code></td><td>${String(p.in)}</td><td>${p.required ? 'required' : 'optional'}</td><td>${prose(p.description)}</td></tr>`,
  );
  const body = op.requestBody ? Object.entries((op.requestBody as Json).content as Record<string, Json>) : [];
  const bodyLine =
    body.length > 0 &&
    html`<p>Body (${body.map(([type], i) => html`${i ? ' or ' : ''}<code>${type}</code>`)}): ${schemaLink(body[0]![1])}</p>`;
  const responses = Object.entries(op.responses as Record<string, Json>).map(([status, r]) => {
    const content = r.content ? Object.values(r.content as Record<string, Json>)[0] : undefined;
    return html`<tr><td>${status}</td><td>${prose(r.description)}</td><td>${content && schemaLink(content)}</td></tr>`;
  });
  return html`<div class="op" id="${String(op.operationId)}"><p><span class="m ${verb}">${verb}</span> <code>${server + path}</code>${op.deprecated === true && html` <span class="dep">deprecated</span>`}</p>
<p><strong>${String(op.summary)}</strong> — ${auth}</p>${op.description ? html`<p>${prose(op.description)}</p>` : ''}
${parameters.length > 0 && html`<table><tr><th>Parameter</th><th>In</th><th>Required</th><th>Description</th></tr>${parameters}</table>`}${bodyLine}
<table><tr><th>Status</th><th>Meaning</th><th>Body</th></tr>${responses}</table></div>`;
}

function schemaLink(media: Json): Html | undefined {
  const ref = (media.schema as Json | undefined)?.$ref;
  if (typeof ref !== 'string') return undefined;
  const name = ref.split('/').pop() ?? '';
  return html`<a href="#schema-${name}">${name}</a>`;
}
