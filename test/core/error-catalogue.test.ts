import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type DetailCodeEntry,
  ERROR_CATALOGUE,
  FIELD_ERROR_CATALOGUE,
  GRAPHQL_ERROR_CATALOGUE,
  isErrorCode,
  renderProblemPage,
} from '../../src/core/error-catalogue.js';
import { type ErrorCode, SwitchboardError, statusOf } from '../../src/core/errors.js';
import { createSwitchboard } from '../../src/index.js';
import { brandingOf, resolveLook } from '../../src/internal/look/index.js';
import { authErrorResponse } from '../../src/oauth/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

/** Every `.ts` file under `src/`, as [path, text]. */
function sources(dir = 'src'): [string, string][] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry): [string, string][] => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [[path, read(path)]] : [];
  });
}

/** The quoted members of `type <name> = 'a' | 'b' …;` wherever it is declared in `src/`. */
function unionMembers(name: string): string[] {
  const declaration = new RegExp(`type ${name}\\s*=([^;]+);`);
  const members = sources().flatMap(([, text]) => {
    const union = declaration.exec(text)?.[1] ?? '';
    return [...union.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
  });
  return [...new Set(members)];
}

/** The text from the `{` that opens the object literal around `index` up to `index`. */
function enclosingObject(text: string, index: number): string {
  let depth = 0;
  for (let i = index - 1; i >= 0; i--) {
    if (text[i] === '}') depth++;
    else if (text[i] === '{' && depth-- === 0) return text.slice(i, index);
  }
  return '';
}

/**
 * Field-level detail codes written in `src/`: `code: '<x>'` in an object that also has a `field` (a
 * details entry, not an `extensions` object or a test's `toMatchObject`), the codes handed positionally to
 * the helpers that build details (`add(field, '<x>', …)`, `one('<x>', …)`, `['<x>', \`…\`]` in the zod
 * mapping, `params: { code: '<x>' }` of a zod custom issue), and the members of the code types that details carry as values (OAuth `error` codes, RFC 6750
 * codes, webhook signature failures).
 */
function producedFieldCodes(): Map<string, string> {
  const found = new Map<string, string>();
  const positional = [
    /\badd\(\s*[^,()]+,\s*'([a-z][a-z0-9_]*)'/g,
    /\bone\(\s*'([a-z][a-z0-9_]*)'/g,
    /\[\s*'([a-z][a-z0-9_]*)',\s*`/g,
    // A zod custom issue that names its own code (field-errors.ts keeps it).
    /\bparams:\s*\{\s*code:\s*'([a-z][a-z0-9_]*)'/g,
  ];
  for (const [path, text] of sources()) {
    for (const match of text.matchAll(/\bcode:\s*'([a-z][a-z0-9_]*)'/g)) {
      if (/\bfield\b/.test(enclosingObject(text, match.index))) found.set(match[1]!, path);
    }
    for (const pattern of positional) for (const match of text.matchAll(pattern)) found.set(match[1]!, path);
  }
  for (const type of ['OAuthErrorCode', 'BearerErrorCode', 'VerifyFailureReason']) {
    const members = unionMembers(type);
    expect(members.length, `type ${type} in src/`).toBeGreaterThan(0);
    for (const code of members) found.set(code, `type ${type}`);
  }
  return found;
}

/** GraphQL `extensions.code` values written in `src/graphql/`. */
function producedGraphQLCodes(): Map<string, string> {
  const found = new Map<string, string>();
  const patterns = [
    /extensions:\s*\{[^}]*?\bcode:\s*'([a-z][a-z0-9_]*)'/g,
    /\bcode:[^,}\n]*\?\?\s*'([a-z][a-z0-9_]*)'/g,
    /\bwithCode\([^,()]+,\s*'([a-z][a-z0-9_]*)'\)/g,
    /\blimitError\(\s*`[^`]*`,\s*'([a-z][a-z0-9_]*)'/g,
    /\bfailure\(\s*'([a-z][a-z0-9_]*)'/g,
  ];
  for (const [path, text] of sources('src/graphql'))
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.set(match[1]!, path);
  return found;
}

/** The text a reader sees of a page: tags dropped, the escapes this module uses undone. */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

const plain = (text: string): string => text.replace(/`/g, '');

const errorCodes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
const detailEntries: readonly DetailCodeEntry[] = [
  ...Object.values(FIELD_ERROR_CATALOGUE),
  ...Object.values(GRAPHQL_ERROR_CATALOGUE),
];

describe('error catalogue', () => {
  it('has an entry for exactly the codes of the ErrorCode type', () => {
    const source = read('src/core/errors.ts');
    const union = /export type ErrorCode\s*=([^;]+);/.exec(source)?.[1] ?? '';
    const declared = [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
    expect(declared.length).toBeGreaterThan(10);
    expect([...errorCodes].sort()).toEqual([...declared].sort());
  });

  it.each(errorCodes)('%s: status from statusOf, the problem title, a meaning and an action', (code) => {
    const entry = ERROR_CATALOGUE[code];
    expect(entry.code).toBe(code);
    expect(statusOf(code)).toBeGreaterThanOrEqual(400);
    expect(entry.status).toBe(statusOf(code));
    expect(entry.title.trim()).not.toBe('');
    expect(entry.meaning.trim()).not.toBe('');
    expect(entry.action.trim()).not.toBe('');
    expect(isErrorCode(code)).toBe(true);
  });

  it('uses the titles problem documents carry today', async () => {
    for (const code of errorCodes) {
      // Through the public API: any error that is not about credentials becomes a plain problem document.
      const body = await authErrorResponse(new SwitchboardError(code, 'Something.')).json();
      expect(body.title, code).toBe(ERROR_CATALOGUE[code].title);
    }
  });

  it('has a meaning and an action for every field-level and GraphQL code', () => {
    for (const [key, entry] of [
      ...Object.entries(FIELD_ERROR_CATALOGUE),
      ...Object.entries(GRAPHQL_ERROR_CATALOGUE),
    ]) {
      expect(entry.code).toBe(key);
      expect(entry.meaning.trim(), key).not.toBe('');
      expect(entry.action.trim(), key).not.toBe('');
    }
    // A GraphQL code is not also an ErrorCode: it would have two meanings.
    for (const code of Object.keys(GRAPHQL_ERROR_CATALOGUE)) expect(isErrorCode(code), code).toBe(false);
  });

  it('is frozen, entries included', () => {
    for (const catalogue of [ERROR_CATALOGUE, FIELD_ERROR_CATALOGUE, GRAPHQL_ERROR_CATALOGUE]) {
      expect(Object.isFrozen(catalogue)).toBe(true);
      for (const entry of Object.values(catalogue)) expect(Object.isFrozen(entry)).toBe(true);
    }
    expect(() => {
      (ERROR_CATALOGUE.not_found as { title: string }).title = 'Gone';
    }).toThrow(TypeError);
  });

  it('lists every field-level code the sources produce', () => {
    const produced = producedFieldCodes();
    // The scan itself works: codes from the zod mapping, positional helpers, details and types.
    for (const code of [
      'unknown_field',
      'too_short',
      'invalid_redirect_uri',
      'already_exists',
      'invalid_grant',
    ])
      expect(produced.has(code), `scan finds ${code}`).toBe(true);
    const missing = [...produced].filter(([code]) => !(code in FIELD_ERROR_CATALOGUE));
    expect(missing, 'codes (and where they are) missing from FIELD_ERROR_CATALOGUE').toEqual([]);
  });

  it('lists every GraphQL code the sources produce, and only those', () => {
    const produced = producedGraphQLCodes();
    expect(produced.has('graphql_parse_failed')).toBe(true);
    const missing = [...produced].filter(
      ([code]) => !isErrorCode(code) && !(code in GRAPHQL_ERROR_CATALOGUE),
    );
    expect(missing, 'codes (and where they are) missing from GRAPHQL_ERROR_CATALOGUE').toEqual([]);
    const stale = Object.keys(GRAPHQL_ERROR_CATALOGUE).filter((code) => !produced.has(code));
    expect(stale, 'GraphQL codes nothing produces').toEqual([]);
  });

  it('lists no field-level code that appears nowhere in the sources', () => {
    const all = sources()
      .map(([, text]) => text)
      .join('\n');
    const stale = Object.keys(FIELD_ERROR_CATALOGUE).filter((code) => !all.includes(`'${code}'`));
    expect(stale).toEqual([]);
  });

  it('stays on Web APIs', () => {
    expect(read('src/core/error-catalogue.ts')).not.toMatch(/from ['"]node:/);
  });
});

describe('docs/errors.md', () => {
  const docs = read('docs/errors.md');

  it.each(errorCodes)('has a section for %s with its status, meaning and action verbatim', (code) => {
    const entry = ERROR_CATALOGUE[code];
    expect(docs).toContain(`### ${code}\n`);
    expect(docs).toContain(`HTTP status ${entry.status}`);
    expect(docs).toContain(entry.meaning);
    expect(docs).toContain(entry.action);
  });

  it('has every field-level and GraphQL code with its meaning and action verbatim', () => {
    for (const entry of detailEntries)
      expect(docs, entry.code).toContain(`| \`${entry.code}\` | ${entry.meaning} | ${entry.action} |`);
  });
});

describe('renderProblemPage', () => {
  const branding = brandingOf(resolveLook(), '/problems');

  it('renders the page of not_found with its title and what to do', () => {
    const page = renderProblemPage('not_found', branding)!;
    const entry = ERROR_CATALOGUE.not_found;
    expect(page).toContain(entry.title);
    expect(page).toContain(entry.action);
    expect(page).toMatch(/<h1><code>not_found<\/code>: Not found<\/h1>/);
  });

  it.each(errorCodes)('renders a self-contained page for %s', (code) => {
    const page = renderProblemPage(code, branding)!;
    const entry = ERROR_CATALOGUE[code];
    expect(page.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(page).toContain('<meta charset="utf-8">');
    expect(page.match(/<main[ >]/g)).toHaveLength(1);
    expect(page).toContain('</main>');
    expect(page.match(/<h1>[\s\S]*?<\/h1>/)?.[0]).toContain(code);
    expect(page.match(/<h1>[\s\S]*?<\/h1>/)?.[0]).toContain(entry.title);
    // Nothing but the one style sheet: no script, no inline style, nothing from elsewhere.
    expect(page).not.toMatch(/<script|<style|<img|\sstyle=|\son\w+=|https?:/i);
    expect(page.match(/<link [^>]*>/g)).toEqual([`<link rel="stylesheet" href="${branding.stylesheet}">`]);
    const text = visibleText(page);
    expect(text).toContain(`HTTP status ${entry.status}`);
    expect(text).toContain(plain(entry.meaning));
    expect(text).toContain(plain(entry.action));
    // Catalogue text is escaped: the only tags are the page's own.
    const tags = [...page.matchAll(/<\/?([a-z0-9!]+)/gi)].map((m) => m[1]!.toLowerCase());
    expect(new Set(tags)).toEqual(
      new Set([
        '!doctype',
        'html',
        'head',
        'meta',
        'title',
        'link',
        'body',
        'header',
        'main',
        'h1',
        'code',
        'p',
        'h2',
      ]),
    );
  });

  it('answers undefined for anything that is not an ErrorCode', () => {
    for (const code of [
      'nope',
      '',
      'NOT_FOUND',
      'constructor',
      '__proto__',
      'toString',
      'graphql_parse_failed',
    ])
      expect(renderProblemPage(code, branding), code).toBeUndefined();
  });
});

describe('problem types that resolve', () => {
  it("a problem's type is the page of its code, served by the switchboard", async () => {
    const switchboard = createSwitchboard();
    const problem = await (await switchboard.fetch(new Request('http://localhost/nowhere'))).json();
    expect(problem.type).toBe('/problems/not_found');
    const page = await switchboard.fetch(new Request(new URL(problem.type, 'http://localhost')));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain(ERROR_CATALOGUE.not_found.action.split('`')[0]!.slice(0, 30));
    expect((await switchboard.fetch(new Request('http://localhost/problems/nope'))).status).toBe(404);
  });
});
