/**
 * Protected resource metadata (RFC 9728): how a client that meets this server's APIs finds the
 * authorization server that issues their tokens, and which scopes exist. MCP clients start here.
 */
import { jsonResponse } from '../http/json.js';
import type { ServerContext } from './server-options.js';

/** Where the metadata of the resource at the origin is served; a resource's path is appended to it. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * The resources of a switchboard that take this server's tokens, by path: the origin itself, MCP,
 * GraphQL and REST. Each has its path-suffixed metadata document (RFC 9728 §3.1).
 */
export const PROTECTED_RESOURCE_PATHS: readonly string[] = ['', '/mcp', '/graphql', '/api'];

/** Scopes a client that registered itself may never ask for: administration. */
export function isAdminScope(scope: string): boolean {
  return scope.startsWith('admin.');
}

/**
 * The URL of the metadata of the resource at `path` on `origin` (RFC 9728 §3.1), as a 401's
 * `resource_metadata` names it (see `bearerChallenge`).
 *
 * @example
 * resourceMetadataUrl('https://api.example.com', '/mcp') // 'https://api.example.com/.well-known/oauth-protected-resource/mcp'
 */
export function resourceMetadataUrl(origin: string, path = ''): string {
  const base = new URL(origin).origin;
  const suffix = path === '/' ? '' : path.replace(/\/$/, '');
  return `${base}${PROTECTED_RESOURCE_PATH}${suffix}`;
}

/**
 * The metadata document of the resource at `path`: its URL, this server as its authorization server,
 * the scopes a client may ask for (administration left out: it is never given to a client that
 * registered itself, and MCP clients register with the scopes listed here) and Bearer in the header only.
 */
export function protectedResourceMetadata(
  ctx: Pick<ServerContext, 'scopes'>,
  issuer: string,
  path: string,
): Record<string, unknown> {
  return {
    resource: `${new URL(issuer).origin}${path}`,
    authorization_servers: [issuer],
    scopes_supported: Object.keys(ctx.scopes).filter((scope) => !isAdminScope(scope)),
    bearer_methods_supported: ['header'],
  };
}

/** Answers `GET /.well-known/oauth-protected-resource<path>`. */
export function protectedResourceResponse(ctx: ServerContext, request: Request, path: string): Response {
  const issuer = ctx.issuerFor(request);
  return jsonResponse(200, protectedResourceMetadata(ctx, issuer, path), {
    'cache-control': 'public, max-age=3600',
    'access-control-allow-origin': '*',
  });
}

/**
 * The protected resource a request path belongs to, as the metadata names it: `/mcp`, `/graphql`,
 * `/api` (every REST version), or the origin (`''`) for anything else.
 */
export function resourcePathOf(pathname: string): string {
  for (const path of PROTECTED_RESOURCE_PATHS) {
    if (path !== '' && (pathname === path || pathname.startsWith(`${path}/`))) return path;
  }
  return '';
}

/**
 * The response with `resource_metadata="…"` added to its Bearer challenge (RFC 9728 §5.1), when it
 * has one without it: for a host that mounts the blocks itself in front of its own authorization
 * server. (`createSwitchboard` names the URL in the request context instead, and each API's challenge
 * carries it.) Any other response is returned as it is.
 */
export function withResourceMetadata(response: Response, metadataUrl: string): Response {
  const challenge = response.headers.get('www-authenticate');
  if (challenge === null || !/^Bearer\b/i.test(challenge) || challenge.includes('resource_metadata=')) {
    return response;
  }
  const headers = new Headers(response.headers);
  const separator = /^Bearer\s*$/i.test(challenge) ? ' ' : ', ';
  headers.set('www-authenticate', `${challenge}${separator}resource_metadata="${metadataUrl}"`);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
