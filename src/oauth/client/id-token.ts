/**
 * Verification of OpenID Connect ID tokens (OIDC Core §3.1.3.7) for the OAuth client helper, with
 * `jose`: the signature against the issuer's JWKS (found through its metadata, fetched with the
 * host's `fetch` and cached), then `iss`, `aud` (and `azp`), `exp`, `iat`, `sub` and `nonce`.
 * Web APIs only.
 */
import { createRemoteJWKSet, customFetch, errors, type JWSAlgorithm, jwtVerify } from 'jose';
import { SwitchboardError } from '../../core/errors.js';
import type { Clock } from '../../core/runtime.js';
import { textEquals } from '../../internal/text-equals.js';

/** The verified claims of an ID token; other claims the issuer sent are kept as they are. */
export interface IdTokenClaims {
  readonly iss: string;
  readonly sub: string;
  readonly aud: string | readonly string[];
  readonly exp: number;
  readonly iat: number;
  readonly nonce?: string;
  readonly [claim: string]: unknown;
}

export interface IdTokenVerifierOptions {
  /** Required to verify: an ID token from a client without an issuer is refused. */
  readonly issuer: string | undefined;
  readonly clientId: string;
  /** Skips discovery when set; else `jwks_uri` from the issuer's metadata. */
  readonly jwksUri: string | undefined;
  readonly fetch: typeof fetch;
  readonly clock: Clock;
}

/**
 * Checks an ID token; `expectedNonce` is the nonce the authorization request sent (`null` when it sent
 * none, so a token carrying one is refused), or `undefined` to skip the check (refreshed tokens).
 */
export type IdTokenVerifier = (
  idToken: string,
  expectedNonce: string | null | undefined,
) => Promise<IdTokenClaims>;

/** Seconds of clock skew allowed on `exp`. */
const LEEWAY_SECONDS = 30;

/** Asymmetric algorithms only: never `none`, nor HMAC (keyed with the client secret; not supported here). */
const ALGORITHMS: JWSAlgorithm[] = [
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'EdDSA',
  'Ed25519',
];

export function createIdTokenVerifier(options: IdTokenVerifierOptions): IdTokenVerifier {
  const { issuer, clientId } = options;
  // The key set lives as long as the client: jose caches it (10 minutes) and fetches it again, at most
  // every 30 seconds, when a token names a `kid` it does not know (the issuer rotated its keys).
  let keySet: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const keys = (iss: string): Promise<ReturnType<typeof createRemoteJWKSet>> => {
    keySet ??= (options.jwksUri ? Promise.resolve(options.jwksUri) : discoverJwksUri(iss, options.fetch))
      .then((uri) =>
        createRemoteJWKSet(new URL(uri), {
          [customFetch]: (url, init) => options.fetch(url, init),
        }),
      )
      .catch((error: unknown) => {
        keySet = undefined; // try again on the next token
        throw error;
      });
    return keySet;
  };

  return async (idToken, expectedNonce) => {
    if (issuer === undefined) {
      throw refused('issuer_not_configured', 'no issuer is configured to check it against (set `issuer`)');
    }
    let claims: IdTokenClaims;
    try {
      const { payload } = await jwtVerify(idToken, await keys(issuer), {
        issuer,
        audience: clientId,
        algorithms: ALGORITHMS,
        requiredClaims: ['iat', 'exp', 'sub'],
        currentDate: new Date(options.clock.now()),
        clockTolerance: LEEWAY_SECONDS,
      });
      claims = payload as IdTokenClaims;
    } catch (error) {
      throw explain(error, issuer, clientId);
    }
    // With several audiences, the authorized party must be this client (OIDC Core §3.1.3.7 items 4–5).
    if (Array.isArray(claims.aud) && claims.aud.length > 1 && claims.azp !== clientId) {
      throw refused('audience_mismatch', `it names several audiences and its azp is not ${clientId}`);
    }
    if (expectedNonce !== undefined) {
      const nonce = claims.nonce;
      if (expectedNonce === null && nonce !== undefined) {
        throw refused(
          'nonce_mismatch',
          'it carries a nonce but none was expected (pass the pending authorization, with its nonce, to exchangeCode)',
        );
      }
      if (expectedNonce !== null && (typeof nonce !== 'string' || !textEquals(nonce, expectedNonce))) {
        throw refused('nonce_mismatch', 'its nonce is not the one the authorization request sent');
      }
    }
    return claims;
  };
}

/** `jwks_uri` from OpenID Connect discovery, else RFC 8414 metadata; the metadata must name the same issuer. */
async function discoverJwksUri(issuer: string, doFetch: typeof fetch): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const candidates = [
    `${url.origin}${path}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
  let failure = '';
  for (const candidate of candidates) {
    let response: Response;
    try {
      response = await doFetch(candidate, { headers: { accept: 'application/json' }, redirect: 'error' });
    } catch (error) {
      throw new SwitchboardError('unavailable', `Could not read the issuer's metadata at ${candidate}.`, {
        cause: error,
      });
    }
    if (!response.ok) {
      failure = `HTTP ${response.status} from ${candidate}`;
      continue;
    }
    const metadata = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (metadata?.issuer !== issuer) {
      throw new SwitchboardError(
        'unavailable',
        `The metadata at ${candidate} is not that of issuer ${issuer}.`,
      );
    }
    if (typeof metadata.jwks_uri !== 'string') {
      throw new SwitchboardError('unavailable', `The issuer's metadata at ${candidate} has no jwks_uri.`);
    }
    return metadata.jwks_uri;
  }
  throw new SwitchboardError('unavailable', `Could not read the issuer's metadata: ${failure}.`);
}

function refused(code: string, reason: string, cause?: unknown): SwitchboardError {
  return new SwitchboardError('forbidden', `The ID token was refused: ${reason}.`, {
    details: [{ field: 'id_token', code, message: `The ID token was refused: ${reason}.` }],
    ...(cause === undefined ? {} : { cause }),
  });
}

function explain(error: unknown, issuer: string, clientId: string): SwitchboardError {
  if (error instanceof SwitchboardError) return error;
  if (error instanceof errors.JWTExpired) return refused('expired', 'it has expired (exp)', error);
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing')
      return refused('claim_missing', `the ${error.claim} claim is missing`, error);
    if (error.claim === 'iss')
      return refused('issuer_mismatch', `it comes from another issuer (iss), not ${issuer}`, error);
    if (error.claim === 'aud')
      return refused('audience_mismatch', `it is meant for another audience (aud), not ${clientId}`, error);
    return refused('claim_invalid', `the ${error.claim} claim is invalid`, error);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return refused('signature_invalid', "its signature does not verify with the issuer's key", error);
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return refused('unknown_key', 'it is signed with a key the issuer does not publish', error);
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return refused('algorithm_not_allowed', 'it is signed with an algorithm that is not allowed', error);
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return refused('malformed', 'it is not a well-formed signed JWT', error);
  // The JWKS could not be fetched or read (network, timeout, not 200, not a key set).
  return new SwitchboardError(
    'unavailable',
    "Could not read the issuer's signing keys (JWKS) to check the ID token.",
    {
      cause: error,
    },
  );
}
