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
