import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { textEquals } from '../internal/text-equals.js';

/** What the sign-in step hands to the consent step: who signed in, for which app, until when. */
export interface SignedIn {
  readonly userId: string;
  /** The e-mail they signed in with, to show on the consent page. */
  readonly username: string;
}

/**
 * The proof, between the two steps of the authorization page, that the user signed in: a signed,
 * short-lived value in the consent form, bound to the app and to the browser's CSRF cookie, so it is
 * worthless in another browser, for another app, or after `ttlMs`. The server keeps no state.
 */
export interface SignInProofs {
  issue(signedIn: SignedIn, binding: ProofBinding, now: number): Promise<string>;
  /** The user, or null when the proof is missing, forged, expired or bound to something else. */
  verify(proof: string | undefined, binding: ProofBinding, now: number): Promise<SignedIn | null>;
}

export interface ProofBinding {
  readonly clientId: string;
  /** The browser's CSRF cookie. */
  readonly browser: string;
}

interface Claims {
  readonly u: string;
  readonly n: string;
  readonly c: string;
  readonly e: number;
}

export function createSignInProofs(secret: string | undefined, ttlMs = 10 * 60_000): SignInProofs {
  // Its own key: a proof can never pass for a CSRF token made from the same secret, or the reverse.
  // Made at the first use: an edge runtime refuses random values in a module's scope.
  let key: Promise<CryptoKey> | undefined;
  const sign = async (payload: string, browser: string): Promise<string> => {
    key ??= crypto.subtle.importKey(
      'raw',
      secret === undefined
        ? crypto.getRandomValues(new Uint8Array(32))
        : new TextEncoder().encode(`sign-in proof:${secret}`),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const mac = await crypto.subtle.sign(
      'HMAC',
      await key,
      new TextEncoder().encode(`${payload}.${browser}`),
    );
    return encodeBase64urlNoPadding(new Uint8Array(mac));
  };
  return {
    async issue(signedIn, binding, now) {
      const claims: Claims = {
        u: signedIn.userId,
        n: signedIn.username,
        c: binding.clientId,
        e: now + ttlMs,
      };
      const payload = encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify(claims)));
      return `${payload}.${await sign(payload, binding.browser)}`;
    },
    async verify(proof, binding, now) {
      const [payload, mac, extra] = (proof ?? '').split('.');
      if (!payload || !mac || extra !== undefined) return null;
      if (!textEquals(await sign(payload, binding.browser), mac)) return null;
      const claims = decode(payload);
      if (!claims || claims.c !== binding.clientId || claims.e <= now) return null;
      return { userId: claims.u, username: claims.n };
    },
  };
}

function decode(payload: string): Claims | null {
  try {
    const claims = JSON.parse(new TextDecoder().decode(decodeBase64urlIgnorePadding(payload)));
    const ok =
      typeof claims?.u === 'string' &&
      typeof claims.n === 'string' &&
      typeof claims.c === 'string' &&
      typeof claims.e === 'number';
    return ok ? claims : null;
  } catch {
    return null;
  }
}
