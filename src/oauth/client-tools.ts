/**
 * Which MCP tools an OAuth client's tokens may call (`OAuthClientRecord.mcpTools`): the names an
 * operator may give, and the lookup the MCP endpoint asks on each request.
 */
import type { Principal } from '../core/auth.js';
import type { Clock } from '../core/runtime.js';
import type { Stores } from '../core/storage/index.js';

/**
 * The form of every MCP tool's name (`list_bookings`, `move_order` …; src/mcp/tools.ts): what a
 * restriction is checked against when the server is not told the names its `/mcp` serves.
 */
export const MCP_TOOL_NAME = /^(list|get|create|update|delete|move)_[a-z0-9_]+$/;

/**
 * The MCP tools a caller's OAuth client restricts it to, or `null` when nothing restricts it (not an
 * OAuth token, or a client allowed every tool its scopes allow).
 */
export type ToolsFor = (principal: Principal) => Promise<ReadonlySet<string> | null>;

/** Options of {@link clientToolsLookup}. */
export interface ClientToolsLookupOptions {
  /** How long an answer is kept (default 5 s): how late another instance sees a changed restriction. */
  readonly ttlMs?: number;
  /** The most clients kept at once (default 1,000); the oldest entry goes first. */
  readonly maxClients?: number;
}

/** The lookup, and how this instance drops a client's kept answer when an operator changes it. */
export interface ClientToolsLookup {
  readonly toolsFor: ToolsFor;
  forget(clientId: string): void;
}

/**
 * Reads a client's restriction from storage, kept a few seconds per client so an agent's burst of
 * MCP calls costs one read rather than one each: the guard has already read the token and its grant,
 * and a restriction changes rarely. A change made on this instance applies at once (`forget`), on
 * another within `ttlMs`; disabling a client needs no cache at all, since it revokes its grants.
 */
export function clientToolsLookup(
  runtime: { readonly storage: Pick<Stores, 'oauth'>; readonly clock: Clock },
  options: ClientToolsLookupOptions = {},
): ClientToolsLookup {
  const ttlMs = options.ttlMs ?? 5_000;
  const maxClients = options.maxClients ?? 1_000;
  const kept = new Map<string, { readonly tools: ReadonlySet<string> | null; readonly until: number }>();
  return {
    async toolsFor(principal) {
      const clientId = principal.clientId;
      if (clientId === undefined) return null;
      const now = runtime.clock.now();
      const known = kept.get(clientId);
      if (known && known.until > now) return known.tools;
      const client = await runtime.storage.oauth.clients.get(clientId);
      const tools = client?.mcpTools ? new Set(client.mcpTools) : null;
      kept.delete(clientId);
      if (kept.size >= maxClients) kept.delete(kept.keys().next().value!);
      kept.set(clientId, { tools, until: now + ttlMs });
      return tools;
    },
    forget(clientId) {
      kept.delete(clientId);
    },
  };
}
