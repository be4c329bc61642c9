/**
 * A readable API reference rendered from the OpenAPI document, in the one look: a sticky table of
 * contents by tag, an anchor per operation, schemas folded in `<details>`, tables that become cards on
 * a phone, and a "Try it" form under each GET operation (reference-script.ts). Everything it loads is
 * served beside it, so it works offline and under a CSP of `'self'`.
 */

import { type Html, html } from '../internal/html.js';
import { type Branding, siteHeader, stylesheetLink } from '../internal/look/page.js';
import type { OpenApiDocument } from './openapi.js';

type Json = Record<string, unknown>;

/** What the page links: the look, and the try-it script's URL. */
export interface ReferenceLinks {
  readonly branding: Branding;
  readonly script: string;
}

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

interface Operation {
  readonly id: string;
  readonly verb: string;
  /** The path as a caller writes it, from the host's root. */
  readonly url: string;
  readonly tag: string;
  readonly op: Json;
}

/**
 * @example
 * new Response(renderReferencePage(document, links), { headers: { 'content-type': 'text/html' } });
 */
export function renderReferencePage(document: OpenApiDocument, links: ReferenceLinks): string {
  const info = document.info as Json;
  const server = ((document.servers as Json[] | undefined)?.[0]?.url as string | undefined) ?? '';
  const paths = document.paths as Record<string, Record<string, Json>>;
  const schemas = ((document.components as Json).schemas ?? {}) as Record<string, Json>;
  const byTag = new Map<string, Operation[]>();
  for (const [path, { servers, ...methods }] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      // A path with servers of its own (another mount's routes) is written from the host's root.
      const tag = String((op.tags as string[] | undefined)?.[0] ?? 'Other');
      const url = (servers ? '' : server) + path;
      const list = byTag.get(tag) ?? byTag.set(tag, []).get(tag)!;
      list.push({ id: String(op.operationId), verb: method.toUpperCase(), url, tag, op });
    }
  }
  const title = `${String(info.title)} ${String(info.version)}`;
  const contents = html`<nav class="toc" aria-label="Contents"><details open id="contents"><summary>Contents</summary>
<h2>Operations</h2>
${[...byTag].map(
  ([tag, ops]) =>
    html`<h3 class="muted">${tag}</h3><ul>${ops.map(
      (o) =>
        html`<li><a href="#${o.id}"><span class="method method-${o.verb.toLowerCase()}">${o.verb}</span> <span>${breakable(o.url)}</span></a></li>`,
    )}</ul>`,
)}
<h2><a href="#schemas">Schemas</a></h2>
<ul>${Object.keys(schemas).map((name) => html`<li><a href="#schema-${name}">${name}</a></li>`)}</ul>
</details></nav>`;
  const sections = [...byTag].map(
    ([tag, ops]) =>
      html`<section aria-labelledby="tag-${slug(tag)}"><h2 id="tag-${slug(tag)}">${tag}</h2>
${ops.map((o) => html`${renderOperation(o)}\n`)}</section>\n`,
  );
  const components = Object.entries(schemas).map(
    ([name, schema]) =>
      html`<details id="schema-${name}"><summary>${name}</summary><pre tabindex="0">${JSON.stringify(schema, null, 2)}</pre></details>\n`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${links.branding.name}</title>
${stylesheetLink(links.branding)}
<script src="${links.script}" defer></script>
</head><body class="look">
<a class="skip" href="#main">Skip to content</a>
${siteHeader(links.branding)}
<div class="with-toc">
${contents}
<main id="main">
<h1>${String(info.title)}</h1>
<p>Version ${String(info.version)} · base path <code>${server}</code> · <a href="openapi.json">OpenAPI document</a></p>
<p>${prose(info.description)}</p>
<div class="field" id="try-auth-box" hidden><label for="try-authorization">Authorization for “Try it”</label>
<input id="try-authorization" type="password" autocomplete="off" spellcheck="false" placeholder="Bearer sbk_…">
<p class="muted">Sent with each “Try it” request; kept in this page only, gone when you leave it.</p></div>
${sections}
<h2 id="schemas">Schemas</h2>
${components}
</main>
</div>
</body></html>`.text;
}

function renderOperation({ id, verb, url, op }: Operation): Html {
  const security = (op.security as Json[] | undefined)?.[0];
  const scopes = security ? Object.values(security).flat().map(String) : [];
  const auth =
    op.security && (op.security as Json[]).length === 0
      ? 'public'
      : scopes.length
        ? html`scope <code>${scopes.join(', ')}</code>`
        : 'any authenticated caller';
  const params = (op.parameters ?? []) as Json[];
  const parameters = params.map(
    (p) =>
      html`<tr><td data-label=""><code>${String(p.name)}</code> <small class="muted">${String(p.in)} · ${p.required ? 'required' : 'optional'}</small></td><td data-label="">${prose(p.description)}</td></tr>`,
  );
  const body = op.requestBody ? Object.entries((op.requestBody as Json).content as Record<string, Json>) : [];
  const bodyLine =
    body.length > 0 &&
    html`<p>Body (${body.map(([type], i) => html`${i ? ' or ' : ''}<code>${type}</code>`)}): ${schemaLink(body[0]![1])}</p>`;
  const statuses = Object.entries(op.responses as Record<string, Json>);
  const responses = statuses.map(([status, r]) => {
    const content = r.content ? Object.values(r.content as Record<string, Json>)[0] : undefined;
    return html`<tr><td data-label="Status">${status}</td><td data-label="Meaning">${prose(r.description)}</td><td data-label="Body">${content && schemaLink(content)}</td></tr>`;
  });
  return html`<section class="op" id="${id}" aria-labelledby="${id}-title">
<h3 id="${id}-title"><span class="method method-${verb.toLowerCase()}">${verb}</span> ${url}${op.deprecated === true && html` <span class="deprecated">deprecated</span>`}</h3>
<p><strong>${String(op.summary)}</strong> — ${auth}</p>${op.description ? html`<p>${prose(op.description)}</p>` : ''}
${parameters.length > 0 && html`<table class="params"><caption>Parameters</caption><thead><tr><th scope="col">Parameter (where · required)</th><th scope="col">Description</th></tr></thead><tbody>${parameters}</tbody></table>`}${bodyLine}
<details><summary>Responses: ${statuses.map(([s]) => s).join(', ')}</summary>
<table><caption>Responses</caption><thead><tr><th scope="col">Status</th><th scope="col">Meaning</th><th scope="col">Body</th></tr></thead><tbody>${responses}</tbody></table></details>
${verb === 'GET' && tryForm(id, url, params)}</section>`;
}

/** The "Try it" form of a GET, folded: its path and query parameters; hidden until the script shows it. */
function tryForm(id: string, url: string, params: readonly Json[]): Html {
  const fields = params
    .filter((p) => p.in === 'path' || p.in === 'query')
    .map((p, i) => {
      const name = String(p.name);
      return html`<div class="field"><label for="${id}-p${i}">${name}${p.in === 'path' ? ' (required)' : ''}</label>
<input id="${id}-p${i}" name="${name}" data-in="${String(p.in)}"${p.in === 'path' && html` required`}></div>`;
    });
  return html`<details class="try" hidden><summary>Try it</summary>
<form data-path="${url}" aria-label="Try ${id}"><div class="fields">${fields}</div>
<button type="submit" class="secondary">Send GET</button>
<output aria-live="polite"><pre tabindex="0"></pre></output>
</form></details>`;
}

function schemaLink(media: Json): Html | undefined {
  const ref = (media.schema as Json | undefined)?.$ref;
  if (typeof ref !== 'string') return undefined;
  const name = ref.split('/').pop() ?? '';
  return html`<a href="#schema-${name}">${name}</a>`;
}

/** A path that may wrap after each `/` rather than inside a word. */
function breakable(path: string): Html {
  return html`${path.split('/').map((part, i) => (i ? html`/<wbr>${part}` : part))}`;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}
