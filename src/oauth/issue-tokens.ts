import type { GrantRecord, OAuthClientRecord } from '../core/storage/index.js';
import { ACCESS_TOKEN_PREFIX, hashSecret, randomSecret } from './secrets.js';
import { OPENID_SCOPE, type ServerContext } from './server-options.js';

/** A successful token response (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope: string;
  readonly refresh_token?: string;
  readonly id_token?: string;
}

export interface IssueOptions {
  readonly grant: GrantRecord;
  readonly client: OAuthClientRecord;
  /** May be narrower than the grant's (a narrowed refresh). */
  readonly scopes: readonly string[];
  /** The token's resources (RFC 8707), within the grant's; empty for every resource. */
  readonly audience: readonly string[];
  readonly refresh: boolean;
  readonly issuer: string;
  /** Set to issue an ID token (code exchange with `openid`). */
  readonly idToken?: { readonly nonce: string | null };
}

/** Stores a new access token (and refresh token) for a grant in one transaction, and answers them. */
export async function issueTokens(ctx: ServerContext, options: IssueOptions): Promise<TokenResponse> {
  const now = ctx.clock.now();
  const { grant, client, scopes } = options;
  const access = randomSecret(ACCESS_TOKEN_PREFIX);
  const refresh = options.refresh ? randomSecret('sbrt_') : undefined;
  const accessExpiresAt = Math.min(now + ctx.accessTokenTtlMs, grant.expiresAt);
  await ctx.storage.transaction(async (tx) => {
    await tx.oauth.accessTokens.insert({
      tokenHash: hashSecret(access),
      grantId: grant.id,
      clientId: client.id,
      userId: grant.userId,
      scopes,
      ...(options.audience.length ? { audience: options.audience } : {}),
      createdAt: now,
      expiresAt: accessExpiresAt,
    });
    if (refresh !== undefined) {
      await tx.oauth.refreshTokens.insert({
        tokenHash: hashSecret(refresh),
        grantId: grant.id,
        createdAt: now,
        expiresAt: Math.min(now + ctx.refreshTokenTtlMs, grant.expiresAt),
        usedAt: null,
      });
    }
  });
  let idToken: string | undefined;
  if (options.idToken && ctx.idTokens && grant.userId !== null && scopes.includes(OPENID_SCOPE)) {
    const iat = Math.floor(now / 1000);
    idToken = await ctx.idTokens.keys.sign({
      iss: options.issuer,
      sub: grant.userId,
      aud: client.id,
      iat,
      exp: iat + Math.floor(ctx.idTokens.ttlMs / 1000),
      ...(options.idToken.nonce === null ? {} : { nonce: options.idToken.nonce }),
    });
  }
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.max(0, Math.floor((accessExpiresAt - now) / 1000)),
    scope: scopes.join(' '),
    ...(refresh === undefined ? {} : { refresh_token: refresh }),
    ...(idToken === undefined ? {} : { id_token: idToken }),
  };
}
