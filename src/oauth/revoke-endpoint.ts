import type { Requester } from '../http/request-context.js';
import { announceCredentialChange } from './credential-changes.js';
import { oauthErrorResponse } from './oauth-error.js';
import type { ServerContext } from './server-options.js';
import { readTokenRequest } from './token-request.js';

/**
 * Token revocation (RFC 7009 §2). Revoking a refresh token revokes its whole grant, so the access
 * tokens issued with it stop working too (§2.1). Unknown tokens, or tokens of other clients, get the
 * same 200 as a success, so the endpoint reveals nothing (§2.2).
 */
export function revokeEndpoint(
  ctx: ServerContext,
): (request: Request, context: Requester) => Promise<Response> {
  return async (_, context) => {
    try {
      const { client, tokenHash: hash, limits } = await readTokenRequest(ctx, context);
      const now = ctx.clock.now();
      const access = await ctx.storage.oauth.accessTokens.get(hash);
      if (access) {
        if (access.clientId === client.id) {
          await ctx.storage.oauth.accessTokens.delete(hash);
          // The guards drop the grant's tokens they hold; the others are read again, and still valid.
          await announceCredentialChange(ctx.bus, ctx.logger, { grant: access.grantId });
        }
      } else {
        const refresh = await ctx.storage.oauth.refreshTokens.get(hash);
        const grant = refresh ? await ctx.storage.oauth.grants.get(refresh.grantId) : null;
        if (grant && grant.clientId === client.id) {
          await ctx.storage.oauth.grants.revoke(grant.id, now);
          await announceCredentialChange(ctx.bus, ctx.logger, { grant: grant.id });
        }
      }
      return new Response(null, { status: 200, headers: { 'cache-control': 'no-store', ...limits } });
    } catch (error) {
      return oauthErrorResponse(error);
    }
  };
}
