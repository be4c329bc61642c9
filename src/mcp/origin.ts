/**
 * DNS rebinding and cross-site calls (MCP transports, "Security warning"): a page on another site, or
 * one whose name was made to point at this server, must not reach the endpoint through a person's
 * browser. A browser always sends `Origin` on a POST, so a request carrying one is answered only when it
 * is the endpoint's own origin or one the host allows. A host serving on a local address names the hosts
 * it answers to, so a request for any other name (a rebound one) is refused before anything is read.
 */

/** Who may call the MCP endpoint, beyond any caller presenting credentials without a browser. */
export interface McpOriginPolicy {
  /**
   * Origins of web pages allowed to call (e.g. `https://inspector.example.com`); the endpoint's own
   * origin always is. A request with any other `Origin` is a 403.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * The `Host` values this endpoint answers to (e.g. `['localhost:3000', '127.0.0.1:3000']` for a server
   * on a loopback address). Unset, every host is answered; set it when the server may be reached by a
   * name an attacker controls (a local server: DNS rebinding).
   */
  readonly allowedHosts?: readonly string[];
}

/** Why a request is refused by the policy, or null when it may go on. */
export function refusedByOrigin(request: Request, policy: McpOriginPolicy): string | null {
  const url = new URL(request.url);
  if (policy.allowedHosts && !policy.allowedHosts.some((h) => h.toLowerCase() === url.host))
    return `This endpoint does not answer to the host ${url.host}; the host lists the names it answers to (mcp.allowedHosts).`;
  const origin = request.headers.get('origin');
  if (origin === null || origin === url.origin || policy.allowedOrigins?.includes(origin)) return null;
  return `Requests from the web page origin ${origin} are not allowed; the host may add it to mcp.allowedOrigins.`;
}
