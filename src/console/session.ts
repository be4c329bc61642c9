/**
 * The console's session: the admin API key the operator signed in with (or the id of a user who signed
 * in with their account) and the session's id, sealed (AES-GCM) into an `HttpOnly`, `SameSite=Strict`
 * cookie. The cookie alone opens nothing: the session must also still be in storage, where sign-out
 * deletes it, and every request checks the key again (a revoked key ends its sessions at once).
 * Changes carry a CSRF token bound to the session.
 */
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { textEquals } from '../internal/text-equals.js';

export const SESSION_COOKIE = 'sb_console';

/** What a session holds: an operator's admin API key, or a user who signed in with their account. */
export interface SessionData {
  readonly apiKey?: string;
  readonly userId?: string;
  readonly expiresAt: number;
  /** Random per sign-in: the session's id (stored hashed), and what the CSRF token is made from. */
  readonly id: string;
}

export interface Sessions {
  seal(data: SessionData): Promise<string>;
  /** Any text sealed with the session key (a secret shown once after a redirect), and opened again. */
  sealText(text: string): Promise<string>;
  openText(sealed: string): Promise<string | undefined>;
  /** The session of the request's cookie, or undefined when absent, forged, or expired at `now`. */
  open(request: Request, now: number): Promise<SessionData | undefined>;
  csrfToken(session: SessionData): Promise<string>;
  checkCsrf(session: SessionData, token: string | undefined): Promise<boolean>;
  /** The Set-Cookie of the session (or, with `name`, of another cookie of the console's path). */
  cookie(
    value: string,
    request: Request,
    maxAgeSeconds: number,
    options?: { readonly name?: string },
  ): string;
}

/**
 * Keys come from `secret` (the same on every instance, so any of them opens any session), or are made
 * at random on first use (sessions then end when the process does).
 */
export function createSessions(secret: string | undefined, path: string): Sessions {
  let keys: Promise<{ seal: CryptoKey; sign: CryptoKey }> | undefined;
  const keysOf = () =>
    (keys ??= (async () => {
      const raw = secret
        ? new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`console:${secret}`)))
        : crypto.getRandomValues(new Uint8Array(32));
      const base = await crypto.subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey']);
      const derive = (info: string, algorithm: AesKeyGenParams | HmacKeyGenParams, usages: KeyUsage[]) =>
        crypto.subtle.deriveKey(
          { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: new TextEncoder().encode(info) },
          base,
          algorithm,
          false,
          usages,
        );
      return {
        seal: await derive('seal', { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt']),
        sign: await derive('csrf', { name: 'HMAC', hash: 'SHA-256', length: 256 }, ['sign']),
      };
    })());
  const csrfToken = async (session: SessionData) =>
    encodeBase64urlNoPadding(
      new Uint8Array(
        await crypto.subtle.sign('HMAC', (await keysOf()).sign, new TextEncoder().encode(session.id)),
      ),
    );
  const sealText = async (text: string): Promise<string> => {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const plain = new TextEncoder().encode(text);
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, (await keysOf()).seal, plain),
    );
    const out = new Uint8Array(iv.length + sealed.length);
    out.set(iv);
    out.set(sealed, iv.length);
    return encodeBase64urlNoPadding(out);
  };
  const openText = async (value: string): Promise<string | undefined> => {
    if (value.length > 4096) return undefined;
    try {
      const bytes = decodeBase64urlIgnorePadding(value);
      const plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: bytes.slice(0, 12) },
        (await keysOf()).seal,
        bytes.slice(12),
      );
      return new TextDecoder().decode(plain);
    } catch {
      return undefined;
    }
  };
  return {
    seal: (data) => sealText(JSON.stringify(data)),
    sealText,
    openText,
    async open(request, now) {
      const value = cookieOf(request, SESSION_COOKIE);
      if (!value) return undefined;
      const text = await openText(value);
      if (text === undefined) return undefined;
      try {
        const data = JSON.parse(text) as SessionData;
        const who = typeof data.apiKey === 'string' || typeof data.userId === 'string';
        return who && typeof data.id === 'string' && data.expiresAt > now ? data : undefined;
      } catch {
        return undefined;
      }
    },
    csrfToken,
    async checkCsrf(session, token) {
      return token !== undefined && textEquals(await csrfToken(session), token);
    },
    cookie(value, request, maxAgeSeconds, options = {}) {
      // Secure everywhere but on a loopback address, where browsers serve plain http for development.
      const secure = !isLoopback(new URL(request.url).hostname);
      return `${options.name ?? SESSION_COOKIE}=${value}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
    },
  };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}
