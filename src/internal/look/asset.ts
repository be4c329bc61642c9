/**
 * A file a page links (a style sheet, a small script), named by a hash of its content so it can be
 * cached for good and linked under a CSP of `'self'`.
 */

/** A content-hashed file: `name` changes whenever `body` does. */
export interface Asset {
  readonly name: string;
  readonly type: string;
  readonly body: string;
}

/**
 * A file named `<stem>-<hash>.<extension>` (FNV-1a of the body: enough to tell versions apart, which
 * is all the name is for).
 */
export function asset(stem: string, extension: string, type: string, body: string): Asset {
  let hash = 2166136261;
  for (let i = 0; i < body.length; i++) hash = Math.imul(hash ^ body.charCodeAt(i), 16777619) >>> 0;
  return { name: `${stem}-${hash.toString(36)}.${extension}`, type, body };
}

/** The answer for an asset: its name changes with its content, so caches may keep it a year. */
export function assetResponse(file: Asset): Response {
  return new Response(file.body, {
    headers: {
      'content-type': file.type,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    },
  });
}
