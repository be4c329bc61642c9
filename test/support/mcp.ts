import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * A raw Streamable HTTP POST to an MCP endpoint, as the SDK's transport sends it but without the SDK:
 * for tests of the transport itself, of budgets and of what a token may reach.
 */

/** POSTs `body` (a JSON-RPC message, or text sent as it is) to `url` (the endpoint, `…/mcp`) as `token`. */
export function postMcp(
  url: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A `tools/call` request message. */
export function toolCall(name: string, args: unknown = {}, id = 1): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/**
 * What an MCP host keeps for its agent, in memory: the SDK's `OAuthClientProvider`. It records the
 * authorization URL the SDK would open in a browser, for the test to drive the pages with; given a
 * `clientMetadataUrl`, the agent names itself by its metadata document instead of registering.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly clientMetadata: OAuthClientMetadata;

  constructor(
    readonly redirectUrl: string,
    clientName: string,
    readonly clientMetadataUrl?: string,
  ) {
    this.clientMetadata = {
      client_name: clientName,
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation = (): OAuthClientInformationMixed | undefined => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed): void => {
    this.client = info;
  };
  tokens = (): OAuthTokens | undefined => this.saved;
  saveTokens = (tokens: OAuthTokens): void => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL): void => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string): void => {
    this.verifier = verifier;
  };
  codeVerifier = (): string => this.verifier;
}
