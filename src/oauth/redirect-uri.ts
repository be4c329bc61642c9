/**
 * Redirect URI rules: exact match against the registered ones (RFC 6749 §3.1.2.3, OAuth 2.1), never a
 * fragment (§3.1.2), https required except for loopback addresses. For public (native) clients only,
 * a loopback URI matches on any port, because native apps pick a free one at run time (RFC 8252 §7.3);
 * web (confidential) clients match exactly.
 */

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI may not be registered, or `null` when it may. */
export function redirectUriProblem(uri: string): string | null {
  if (!URL.canParse(uri)) return `"${uri}" is not an absolute URL.`;
  const url = new URL(uri);
  // `hash` is empty for a bare '#', which is still a fragment.
  if (uri.includes('#')) return `"${uri}" must not contain a fragment (RFC 6749 §3.1.2).`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return null;
  return `"${uri}" must use https (plain http only on a loopback address, RFC 8252 §7.3).`;
}

/** Whether the requested redirect URI is one of the client's registered ones. */
export function redirectUriAllowed(
  requested: string,
  client: { readonly redirectUris: readonly string[]; readonly secretHash: string | null },
): boolean {
  if (!URL.canParse(requested)) return false;
  const asked = new URL(requested);
  // A '#' — even an empty fragment, which `hash` does not show — is never part of a redirect URI.
  if (requested.includes('#')) return false;
  const registered = client.redirectUris;
  if (registered.includes(requested)) return true;
  const isPublic = client.secretHash === null;
  if (!isPublic || asked.protocol !== 'http:' || !LOOPBACK.has(asked.hostname)) return false;
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
