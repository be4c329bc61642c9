/**
 * GraphiQL for browsers on GET, served entirely by the handler: the page, then its script, styles and
 * fonts from `<path>/graphiql/<content-hashed name>` (scripts/graphiql-assets.mjs bundles them at
 * build time). The CSP allows only the server's own origin, so the page works offline and nothing
 * outside can inject script into a page that holds a credential. The frame around GraphiQL (a header
 * with the host's name and logo) is in the one look, linked from the same folder.
 */
import { decodeBase64 } from '@oslojs/encoding';
import { SwitchboardError } from '../../core/errors.js';
import { html } from '../../internal/html.js';
import { assetResponse, type Look, siteHeader } from '../../internal/look/index.js';

type Assets = typeof import('./assets.generated.js');

const csp = (look: Look): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "font-src 'self'",
    `img-src ${look.imgSrc}`,
    // 'self' covers ws:/wss: to the same host: subscriptions.
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

const SEGMENT = '/graphiql/';

export interface GraphiQL {
  /** The page, for GET of the GraphQL path from a browser. */
  page(request: Request): Promise<Response>;
  /** One of the page's files, or `undefined` when the request names none. */
  asset(request: Request): Promise<Response | undefined>;
}

export function createGraphiQL(options: { look: Look }): GraphiQL {
  const { look } = options;
  // Loaded on the first browser visit only: a server that never shows GraphiQL never parses 1.8 MB.
  let assets: Promise<Assets> | undefined;
  const load = () => {
    assets ??= import('./assets.generated.js').catch((error: unknown) => {
      assets = undefined;
      throw new SwitchboardError(
        'unavailable',
        "GraphiQL's files were not built: run `npm run build` (scripts/graphiql-assets.mjs).",
        { cause: error },
      );
    });
    return assets;
  };
  const bodies = new Map<string, Promise<Body>>();

  return {
    async page(request) {
      const { script, style, icon } = await load();
      // Relative to the page, so it works under any mount path: /a/graphql → graphql/graphiql/….
      const path = new URL(request.url).pathname;
      const last = path.slice(path.lastIndexOf('/') + 1);
      const base = last ? `${last}${SEGMENT}` : SEGMENT.slice(1);
      const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL · ${look.name}</title>
<link rel="icon" href="${base}${icon}" type="image/svg+xml">
<link rel="stylesheet" href="${base}${look.stylesheet.name}">
<link rel="stylesheet" href="${base}${style}">
<script defer src="${base}${script}"></script>
</head>
<body class="graphiql-frame">
${siteHeader({ name: `${look.name} GraphiQL`, logoUrl: look.logoUrl })}
<main id="graphiql" aria-label="GraphiQL"><p>Loading GraphiQL…</p><noscript>GraphiQL needs JavaScript.</noscript></main>
</body>
</html>`.text;
      return new Response(page, {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-cache',
          'content-security-policy': csp(look),
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
        },
      });
    },

    async asset(request) {
      const path = new URL(request.url).pathname;
      const at = path.lastIndexOf(SEGMENT);
      if (at < 0) return undefined;
      const name = path.slice(at + SEGMENT.length);
      if (name === look.stylesheet.name) return assetResponse(look.stylesheet);
      const file = (await load()).files[name];
      if (!file) return undefined;
      const [type, text, encoding] = file;
      let body = bodies.get(name);
      if (!body) {
        body = prepare(text, encoding);
        bodies.set(name, body);
      }
      const { bytes, gzipped } = await body;
      const gzip = gzipped && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
      const headers: Record<string, string> = {
        'content-type': type,
        // The name changes with the content.
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        vary: 'Accept-Encoding',
      };
      if (gzip) headers['content-encoding'] = 'gzip';
      return new Response(gzip ? gzipped : bytes, { headers });
    },
  };
}

interface Body {
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** Text files compressed once (1.8 MB of script and styles is about 0.5 MB in gzip). */
  readonly gzipped?: Uint8Array<ArrayBuffer>;
}

async function prepare(text: string, encoding: 'base64' | undefined): Promise<Body> {
  if (encoding === 'base64') return { bytes: new Uint8Array(decodeBase64(text)) };
  const bytes = new TextEncoder().encode(text);
  if (typeof CompressionStream !== 'function') return { bytes };
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
  return { bytes, gzipped: new Uint8Array(await new Response(stream).arrayBuffer()) };
}
