import { SwitchboardError } from '../core/errors.js';
import type { OAuthClientRecord } from '../core/storage/index.js';
import type { RateHeaders } from '../http/rate-limit.js';
import type { Requester } from '../http/request-context.js';
import { authenticateWithinBudget, withRateHeaders } from './budgets.js';
import { readForm, single } from './form.js';
import { oauthError } from './oauth-error.js';
import { hashSecret } from './secrets.js';
import type { ServerContext } from './server-options.js';

export interface TokenRequest {
  /** The authenticated client asking. */
  readonly client: OAuthClientRecord;
  /** The hash of the `token` parameter: tokens are looked up by hash, never stored in plain. */
  readonly tokenHash: string;
  /** The RateLimit fields of the caller's failed-authentication budget, with rate limits. */
  readonly limits: RateHeaders | undefined;
}

/**
 * Reads what revocation (RFC 7009 §2.1) and introspection (RFC 7662 §2.1) requests share: a POSTed
 * form with client authentication and a `token` parameter.
 */
export async function readTokenRequest(ctx: ServerContext, context: Requester): Promise<TokenRequest> {
  const { request } = context;
  if (request.method !== 'POST') throw new SwitchboardError('method_not_allowed', 'Use POST.');
  const params = await readForm(request, ctx.maxBodyBytes);
  const { client, limits } = await authenticateWithinBudget(ctx, context, params);
  const token = single(params, 'token');
  if (!token) throw withRateHeaders(oauthError('invalid_request', 'The token is missing.'), limits);
  return { client, tokenHash: hashSecret(token), limits };
}
