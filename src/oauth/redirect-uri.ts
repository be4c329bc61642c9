/**
 * Redirect URI rules: exact match against the registered ones (RFC 6749 §3.1.2.3, OAuth 2.1), https
 * required except for loopback addresses, where any port is allowed because native apps pick a free
 * one at run time (RFC 8252 §7.3).
 */

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI may not be registered, or `null` when it may. */
export function redirectUriProblem(uri: string): string | null {
  if (!URL.canParse(uri)) return `"${uri}" is not an absolute URL.`;
  const url = new URL(uri);
  if (url.hash) return `"${uri}" must not contain a fragment (RFC 6749 §3.1.2).`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return null;
  return `"${uri}" must use https (plain http only on a loopback address, RFC 8252 §7.3).`;
}

/** Whether the requested redirect URI is one of the registered ones. */
export function redirectUriAllowed(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  if (!URL.canParse(requested)) return false;
  const asked = new URL(requested);
  if (asked.protocol !== 'http:' || !LOOPBACK.has(asked.hostname)) return false;
  return registered.some((uri) => {
    const known = new URL(uri);
    return (
      known.protocol === 'http:' &&
      known.hostname === asked.hostname &&
      known.pathname === asked.pathname &&
      known.search === asked.search
    );
  });
}
