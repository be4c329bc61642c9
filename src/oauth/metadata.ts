import { jsonResponse } from '../http/json.js';
import { OPENID_SCOPE, type ServerContext } from './server-options.js';

/** Paths of every endpoint, relative to the issuer. */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
  introspect: '/oauth/introspect',
  jwks: '/oauth/jwks',
  register: '/oauth/register',
  metadata: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
} as const;

/**
 * Authorization server metadata (RFC 8414 §2), also served as OpenID Connect discovery when ID tokens
 * are on. `authorization_response_iss_parameter_supported` tells clients to check `iss` (RFC 9207);
 * `registration_endpoint` is there while dynamic registration (RFC 7591) is on, and
 * `client_id_metadata_document_supported` while client ID metadata documents are.
 */
export function serverMetadata(ctx: ServerContext, issuer: string): Record<string, unknown> {
  const url = (path: string): string => `${issuer}${path}`;
  const authMethods = ['client_secret_basic', 'client_secret_post', 'none'];
  const metadata: Record<string, unknown> = {
    issuer,
    authorization_endpoint: url(OAUTH_PATHS.authorize),
    token_endpoint: url(OAUTH_PATHS.token),
    revocation_endpoint: url(OAUTH_PATHS.revoke),
    introspection_endpoint: url(OAUTH_PATHS.introspect),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    introspection_endpoint_auth_methods_supported: authMethods,
    scopes_supported: [...Object.keys(ctx.scopes), ...(ctx.idTokens ? [OPENID_SCOPE] : [])],
    authorization_response_iss_parameter_supported: true,
  };
  if (ctx.dynamicRegistration) metadata.registration_endpoint = url(OAUTH_PATHS.register);
  if (ctx.clientMetadataDocuments) metadata.client_id_metadata_document_supported = true;
  if (ctx.idTokens) {
    metadata.jwks_uri = url(OAUTH_PATHS.jwks);
    metadata.subject_types_supported = ['public'];
    metadata.id_token_signing_alg_values_supported = ctx.idTokens.keys.algorithms;
    metadata.claims_supported = ['iss', 'sub', 'aud', 'exp', 'iat', 'nonce'];
  }
  return metadata;
}

export function metadataResponse(ctx: ServerContext, request: Request): Response {
  return jsonResponse(200, serverMetadata(ctx, ctx.issuerFor(request)), {
    'cache-control': 'public, max-age=3600',
    'access-control-allow-origin': '*',
  });
}
