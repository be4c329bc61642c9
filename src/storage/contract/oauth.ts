/**
 * OAuth 2.0 authorization-server records: registered clients, authorization codes, grants with their
 * refresh-token families, and access tokens. Secrets and tokens are stored hashed.
 *
 * Filled in by the OAuth module (issue 5).
 */
// biome-ignore lint/suspicious/noEmptyInterface: placeholder until the OAuth stores land.
export interface OAuthStores {}
