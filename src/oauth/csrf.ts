import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { textEquals } from '../internal/text-equals.js';
import { randomUrlSafe } from './secrets.js';

/** The cookie that carries the per-browser CSRF secret of the consent form. */
export const CSRF_COOKIE = 'sb_oauth_csrf';

/**
 * Signed double-submit CSRF protection: the browser holds a random value in a `SameSite=Strict`,
 * `HttpOnly` cookie; the form carries an HMAC of it under the server's secret. A cross-site page can
 * neither read the cookie nor forge the HMAC.
 */
export interface Csrf {
  /** The cookie value to keep (the existing one, or a new one) and the token to put in the form. */
  issue(request: Request): Promise<{ cookie: string; token: string; isNew: boolean }>;
  verify(request: Request, token: string | undefined): Promise<boolean>;
  /** The browser's well-formed CSRF cookie, if it sent one: what binds a sign-in proof to this browser. */
  browserOf(request: Request): string | undefined;
}

export function createCsrf(secret: string | undefined): Csrf {
  // Made at the first request, not here: an edge runtime refuses random values in a module's scope,
  // where a switchboard is often made.
  let key: Promise<CryptoKey> | undefined;
  const keyOf = (): Promise<CryptoKey> =>
    (key ??= crypto.subtle.importKey(
      'raw',
      secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    ));
  const sign = async (value: string): Promise<string> =>
    encodeBase64urlNoPadding(
      new Uint8Array(await crypto.subtle.sign('HMAC', await keyOf(), new TextEncoder().encode(value))),
    );
  const browserOf = (request: Request): string | undefined => {
    const cookie = readCookie(request, CSRF_COOKIE);
    return cookie && isWellFormed(cookie) ? cookie : undefined;
  };
  return {
    async issue(request) {
      const existing = browserOf(request);
      const cookie = existing ?? randomUrlSafe();
      return { cookie, token: await sign(cookie), isNew: cookie !== existing };
    },
    browserOf,
    async verify(request, token) {
      const cookie = browserOf(request);
      if (!cookie || !token) return false;
      return textEquals(await sign(cookie), token);
    },
  };
}

export function csrfCookieHeader(value: string, options: { secure: boolean }): string {
  return `${CSRF_COOKIE}=${value}; Path=/oauth; HttpOnly; SameSite=Strict${options.secure ? '; Secure' : ''}`;
}

function isWellFormed(value: string): boolean {
  try {
    return decodeBase64urlIgnorePadding(value).length === 32;
  } catch {
    return false;
  }
}

function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}
