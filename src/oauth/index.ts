/**
 * Delegated authorization: an OAuth 2.0 authorization server (code flow with PKCE, rotating refresh
 * tokens, revocation, introspection, optional ID tokens), the guard every interface uses to turn
 * `Authorization: Bearer …` (access tokens and `sbk_` API keys) into a principal, and helpers for
 * calling other OAuth systems.
 *
 * @example
 * import { createAuthorizationServer, createPasswordSignIn } from 'switchboard-kit/oauth';
 * const oauth = createAuthorizationServer(runtime, { issuer: 'https://api.example.com', signIn });
 * const principal = await oauth.authenticate(request); // throws `unauthorized` with an RFC 6750 code
 *
 * @packageDocumentation
 */

export {
  authErrorResponse,
  type BearerErrorCode,
  bearerChallenge,
  type ChallengeOptions,
} from '../http/challenge.js';
export type { OutboundPolicy, ResolveHost } from '../http/outbound.js';
export { ADMIN_SCOPE, OAUTH_ADMIN_SCOPES } from './admin-routes.js';
export type {
  ApiKeyView,
  ApiKeyWithKey,
  OAuthAdmin,
  OAuthClientView,
  OAuthClientWithSecret,
  OAuthGrantFilter,
  OAuthGrantView,
  RotatedClientSecret,
} from './admin-service.js';
export {
  API_KEY_PREFIX,
  type ApiKeyOptions,
  type CreateApiKeyInput,
  type CreatedApiKey,
  createApiKey,
  ensureApiKey,
} from './api-keys.js';
export {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  createAuthorizationServer,
} from './authorization-server.js';
export {
  type CodeExchange,
  createOAuthClient,
  type IdTokenClaims,
  type OAuthClient,
  type OAuthClientConfig,
  type PendingAuthorization,
  type TokenSet,
} from './client/oauth-client.js';
export type { ToolsFor } from './client-tools.js';
export {
  type RegisterClientInput,
  type RegisterClientOptions,
  type RegisteredClient,
  registerOAuthClient,
  rotateOAuthClientSecret,
  type UpdateClientInput,
  updateOAuthClient,
} from './clients.js';
export { type ConsentView, renderConsentPage, type ScopeView } from './consent-page.js';
export type { CredentialCacheOptions } from './credential-cache.js';
export { createGuard, type GuardOptions, type GuardRuntime } from './guard.js';
export type { TokenResponse } from './issue-tokens.js';
export { OAUTH_PATHS } from './metadata.js';
export { type OAuthErrorCode, oauthErrorResponse } from './oauth-error.js';
export { createPasswordSignIn, type PasswordSignInOptions, type PasswordUser } from './password-sign-in.js';
export {
  PROTECTED_RESOURCE_PATH,
  PROTECTED_RESOURCE_PATHS,
  protectedResourceMetadata,
  resourceMetadataUrl,
  withResourceMetadata,
} from './protected-resource.js';
export { ACCESS_TOKEN_PREFIX, randomSecret } from './secrets.js';
export type { IdTokenOptions, OAuthConfig, OAuthOptions, OAuthRuntime, SignIn } from './server-options.js';
export type { SignInLockoutOptions } from './sign-in-lockout.js';
export {
  createKeyRing,
  generateSigningKey,
  type KeyRing,
  type KeyRingOptions,
  type SigningAlgorithm,
  type SigningKey,
} from './signing-keys.js';
