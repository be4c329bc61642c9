/**
 * Static API keys for machine-to-machine access: stored hashed, scoped, revocable.
 *
 * Filled in by the OAuth module (issue 5).
 */
// biome-ignore lint/suspicious/noEmptyInterface: placeholder until the API key store lands.
export interface ApiKeyStore {}
