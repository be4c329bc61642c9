import { isPossibleId, isStorableText, MAX_ID_LENGTH } from '../core/storable-text.js';
import type { OAuthClientRecord } from '../core/storage/index.js';
import { findClient } from './client-lookup.js';
import { single } from './form.js';
import { oauthError } from './oauth-error.js';
import { secretMatches } from './secrets.js';
import type { ServerContext } from './server-options.js';

/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3.1):
 * `client_secret_basic` (credentials form-encoded, then Base64, in `Authorization: Basic`) or
 * `client_secret_post`; public clients send only `client_id`. Secrets are compared as hashes in
 * constant time. Using two methods at once is refused (§2.3).
 */
export async function authenticateClient(
  ctx: ServerContext,
  request: Request,
  params: URLSearchParams,
): Promise<OAuthClientRecord> {
  const header = request.headers.get('authorization');
  let clientId: string | undefined;
  let secret: string | undefined;
  if (header !== null) {
    const basic = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
    if (!basic) throw oauthError('invalid_client', 'Use HTTP Basic client authentication.');
    if (params.has('client_secret'))
      throw oauthError('invalid_request', 'Use one client authentication method.');
    const decoded = decodeBasic(basic[1]!);
    if (!decoded) throw oauthError('invalid_client', 'The Basic credentials are malformed.');
    [clientId, secret] = decoded;
    const bodyId = single(params, 'client_id');
    if (bodyId !== undefined && bodyId !== clientId)
      throw oauthError('invalid_client', 'client_id does not match.');
  } else {
    clientId = single(params, 'client_id');
    secret = single(params, 'client_secret');
  }
  if (!clientId) throw oauthError('invalid_client', 'Say which client you are (client_id).');
  // An id no client can have is answered before storage is asked (an unknown client, §5.2).
  if (!isPossibleId(clientId))
    throw oauthError(
      'invalid_client',
      `No client has this client_id: ids have at most ${MAX_ID_LENGTH} characters.`,
    );
  const client = await findClient(ctx, clientId);
  if (!client) throw oauthError('invalid_client', 'Client authentication failed.');
  if (client.secretHash === null) {
    if (secret !== undefined) throw oauthError('invalid_client', 'This is a public client: send no secret.');
    return client;
  }
  // During a rotation's overlap the replaced secret still works (compared in constant time as well).
  const previous = client.previousSecret;
  const accepted =
    secret !== undefined &&
    (secretMatches(secret, client.secretHash) ||
      (previous != null && previous.until > ctx.clock.now() && secretMatches(secret, previous.hash)));
  if (!accepted) throw oauthError('invalid_client', 'Client authentication failed.');
  return client;
}

/**
 * The client id and secret of an `Authorization: Basic` value (RFC 6749 §2.3.1), or null when malformed
 * (a NUL in either counts: no client has one).
 */
export function decodeBasic(encoded: string): [string, string] | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0)),
    );
    const colon = text.indexOf(':');
    if (colon < 0) return null;
    const decode = (part: string): string => decodeURIComponent(part.replaceAll('+', ' '));
    const [id, secret] = [decode(text.slice(0, colon)), decode(text.slice(colon + 1))];
    return isStorableText(id) && isStorableText(secret) ? [id, secret] : null;
  } catch {
    return null;
  }
}
