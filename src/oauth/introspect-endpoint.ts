import type { GrantRecord } from '../core/storage/index.js';
import { jsonResponse } from '../http/json.js';
import type { Requester } from '../http/request-context.js';
import { oauthErrorResponse } from './oauth-error.js';
import type { ServerContext } from './server-options.js';
import { readTokenRequest } from './token-request.js';

/**
 * Token introspection (RFC 7662 §2). The caller authenticates as a client and learns about its own
 * tokens only; anything else, expired or revoked is `{ "active": false }` (§2.2).
 */
export function introspectEndpoint(
  ctx: ServerContext,
): (request: Request, context: Requester) => Promise<Response> {
  return async (request, context) => {
    try {
      const { client, tokenHash: hash, limits } = await readTokenRequest(ctx, context);
      const now = ctx.clock.now();
      const headers = { 'cache-control': 'no-store', ...limits };
      const inactive = jsonResponse(200, { active: false }, headers);
      const live = (grant: GrantRecord | null): grant is GrantRecord =>
        grant !== null && grant.revokedAt === null && grant.expiresAt > now && grant.clientId === client.id;

      const access = await ctx.storage.oauth.accessTokens.get(hash);
      const refresh = access ? null : await ctx.storage.oauth.refreshTokens.get(hash);
      const record = access ?? refresh;
      if (!record || record.expiresAt <= now) return inactive;
      if (refresh && refresh.usedAt !== null) return inactive;
      const grant = await ctx.storage.oauth.grants.get(record.grantId);
      if (!live(grant)) return inactive;
      const aud = access ? (access.audience ?? []) : (grant.resources ?? []);
      return jsonResponse(
        200,
        {
          active: true,
          scope: (access?.scopes ?? grant.scopes).join(' '),
          client_id: grant.clientId,
          token_type: access ? 'Bearer' : 'refresh_token',
          exp: Math.floor(record.expiresAt / 1000),
          iat: Math.floor(record.createdAt / 1000),
          iss: ctx.issuerFor(request),
          // The resources the token is for (RFC 8707; RFC 7662 §2.2 aud); none for a token good everywhere.
          ...(aud.length ? { aud } : {}),
          ...(grant.userId === null ? {} : { sub: grant.userId }),
        },
        headers,
      );
    } catch (error) {
      return oauthErrorResponse(error);
    }
  };
}
