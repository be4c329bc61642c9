/**
 * The MCP endpoint (Streamable HTTP, stateless; protocol 2025-11-25, 2025-06-18 and 2025-03-26) as a Web fetch
 * handler: one JSON-RPC message per POST, answered with `application/json`, and GET for the stream of
 * record changes (changes.ts). No session: every request is authenticated on its own, as REST's are.
 * See docs/mcp.md and docs/decisions.md ("MCP: our own stateless Streamable HTTP handler").
 */
import type { Attributes } from '@opentelemetry/api';
import { type Authenticate, type Principal, resolveTrust } from '../core/auth.js';
import type { Domain } from '../core/domain/index.js';
import { isSwitchboardError, SwitchboardError, statusOf } from '../core/errors.js';
import type { EventBus } from '../core/event-bus.js';
import { servedScopes } from '../core/resources/scopes.js';
import { latestApiVersion } from '../core/resources/wire.js';
import type { Runtime } from '../core/runtime.js';
import { inSpan } from '../core/telemetry/index.js';
import { readBody } from '../http/body.js';
import { authErrorResponse, challengeOptionsOf } from '../http/challenge.js';
import { createCredentialWatch } from '../http/credential-watch.js';
import type { PageLimits } from '../http/pagination.js';
import { problemResponse } from '../http/problem.js';
import { type RateLimiter, rateHeadersOf } from '../http/rate-limit.js';
import { type ConnectionInfo, requestContext } from '../http/request-context.js';
import { changeStreams, type OpenChangeStream } from './changes.js';
import { failure, isMessage, JSON_RPC, JsonRpcError, type JsonRpcMessage, result } from './json-rpc.js';
import { type McpOriginPolicy, refusedByOrigin } from './origin.js';
import { type MayRead, recordResources } from './records.js';
import { type McpTool, resourceTools } from './tools.js';

/** The protocol versions served, newest first: the first is answered to a client asking for another. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

/** Settings of the MCP endpoint, what `createSwitchboard`'s `mcp` takes. */
export interface McpConfig extends McpOriginPolicy {
  /** Told to the client at `initialize`: how to use these tools (MCP `instructions`). */
  readonly instructions?: string;
  /** Page size bounds of the list tools (as REST's `limits`). */
  readonly limits?: PageLimits;
  /** Largest request body accepted, in bytes (413 above). Default 64 KiB, as REST's. */
  readonly maxBodyBytes?: number;
  /** How often the credentials of open change streams are checked again (default 30 s, as GraphQL's). */
  readonly credentialCheckMs?: number;
  /** Changes held for a change-stream reader that is not reading; one more and it is dropped (100). */
  readonly maxStreamQueue?: number;
}

/** Options of {@link createMcpHandler}: the domain whose resources become tools, and who the caller is. */
export interface McpHandlerOptions extends McpConfig {
  readonly domain: Domain;
  /** Identifies the caller of each POST (an API key or OAuth access token, as on REST). */
  readonly authenticate: Authenticate;
  /** Budgets per caller: a write tool's call from the write class, anything else from the read class. */
  readonly rateLimit?: RateLimiter;
  /**
   * The tools a caller is restricted to beyond its scopes (its OAuth client's, set by an operator),
   * `null` for none: asked once per `tools/list`, `tools/call`, `resources/*` request and change stream
   * (a resource is read as its `get_<name>` tool). `createSwitchboard` passes the
   * authorization server's `toolsFor`, which keeps each client's answer a few seconds rather than
   * reading storage on every call.
   */
  readonly toolsFor?: (principal: Principal) => Promise<ReadonlySet<string> | null>;
  /**
   * Where record changes are published: with it, `GET /mcp` streams them to the caller as
   * `notifications/resources/updated` (docs/mcp.md); without it, GET is a 405.
   */
  readonly bus?: EventBus;
}

/** The MCP endpoint: `(request, info?) => Response`. */
export type McpHandler = (request: Request, info?: ConnectionInfo) => Promise<Response>;

// The labels of `switchboard.mcp.tool.calls` (docs/operations.md), the outcome's on the span too.
const TOOL = 'switchboard.mcp.tool';
const OUTCOME = 'switchboard.mcp.outcome';
const CODE = 'switchboard.mcp.code';

// The package's version; test/mcp/tools.test.ts keeps it in step with package.json.
const SERVER_INFO = { name: 'switchboard-kit', title: 'Switchboard', version: '0.1.0' };
const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
const DEFAULT_CREDENTIAL_CHECK_MS = 30_000;
const DEFAULT_STREAM_QUEUE = 100;
const KEEP_ALIVE_MS = 15_000;
const ANONYMOUS: Principal = { kind: 'service', subject: 'anonymous', scopes: new Set() };
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The MCP endpoint of a domain's resources, every one of them a set of tools (docs/mcp.md). A
 * caller sees and calls only the tools its scopes allow; a signed-in user's calls reach only their
 * own client's records.
 *
 * @example
 * const mcp = createMcpHandler(runtime, { domain, authenticate });
 * Deno.serve((request) => new URL(request.url).pathname === '/mcp' ? mcp(request) : rest(request));
 */
export function createMcpHandler(
  runtime: Pick<Runtime, 'telemetry' | 'logger' | 'storage' | 'clock'>,
  options: McpHandlerOptions,
): McpHandler {
  const services = Object.values(options.domain.resources);
  const apiVersion = latestApiVersion(services.map((s) => s.resource));
  const tools = services.flatMap((service) =>
    resourceTools(service, {
      apiVersion,
      idempotency: { store: runtime.storage.idempotency, clock: runtime.clock },
      ...(options.limits ? { limits: options.limits } : {}),
    }),
  );
  const byName = new Map(tools.map((t) => [t.name, t]));
  // A trusted caller holds every scope served here, a host resource's too.
  const authenticate = resolveTrust(options.authenticate, servedScopes(options.domain.resources));
  const { tracer, measuring, mcpToolCalls } = runtime.telemetry;
  const count = (attributes: Attributes) => {
    if (measuring) mcpToolCalls.add(1, attributes);
  };
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  // What the caller may use: its scopes', narrowed to its client's tools when an operator chose some.
  const usable = async (principal: Principal): Promise<(tool: McpTool) => boolean> => {
    const allowed = options.toolsFor ? await options.toolsFor(principal) : null;
    return (tool) => principal.scopes.has(tool.scope) && (allowed === null || allowed.has(tool.name));
  };
  const visible = async (principal: Principal) => tools.filter(await usable(principal));
  const getTool = new Map(
    services.flatMap((s) => {
      const get = byName.get(`get_${s.resource.name.replaceAll('-', '_')}`);
      return get ? [[s.resource.name, get] as const] : [];
    }),
  );
  // Records are read as get_<name> reads them: a caller (or its client) without that tool reads none.
  const readsOf = async (principal: Principal): Promise<MayRead> => {
    const may = await usable(principal);
    return (resource) => {
      const get = getTool.get(resource.name);
      return get !== undefined && may(get);
    };
  };
  const records = recordResources(services, apiVersion);
  const openChanges =
    options.bus &&
    changeStreams(services, {
      bus: options.bus,
      watch: createCredentialWatch({
        authenticate,
        intervalMs: options.credentialCheckMs ?? DEFAULT_CREDENTIAL_CHECK_MS,
        logger: runtime.logger,
      }),
      maxQueue: options.maxStreamQueue ?? DEFAULT_STREAM_QUEUE,
      keepAliveMs: KEEP_ALIVE_MS,
    });

  const callTool = async (principal: Principal, params: Record<string, unknown>) => {
    const name = params.name;
    const tool = typeof name === 'string' ? byName.get(name) : undefined;
    // A tool the caller may not use is as unknown as one that does not exist. Its name is the
    // caller's text, so it is no metric label (unbounded).
    if (!tool || !(await usable(principal))(tool)) {
      count({ [OUTCOME]: 'refused' });
      throw new JsonRpcError(JSON_RPC.invalidParams, `Unknown tool: ${String(name)}`);
    }
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      count({ [TOOL]: tool.name, [OUTCOME]: 'refused' });
      throw new JsonRpcError(JSON_RPC.invalidParams, 'arguments must be an object.');
    }
    return inSpan(
      tracer,
      `mcp.tool ${tool.name}`,
      { attributes: { 'mcp.tool.name': tool.name } },
      async (span) => {
        let outcome: Attributes = { [OUTCOME]: 'error', [CODE]: 'internal_error' };
        try {
          // The call's changes are marked as an agent's: their events say `via: 'mcp'`. Copied by a
          // rest pattern, then marked: Node 20 takes a slow path for `{ ...principal, via }`.
          const { ...agent } = principal as { -readonly [K in keyof Principal]: Principal[K] };
          agent.via = 'mcp';
          const ran = await run(tool, agent, args as Record<string, unknown>);
          outcome = ran.code ? { [OUTCOME]: 'error', [CODE]: ran.code } : { [OUTCOME]: 'ok' };
          return ran.result;
        } finally {
          span.setAttributes(outcome);
          count({ [TOOL]: tool.name, ...outcome });
        }
      },
    );
  };

  const dispatch = async (principal: Principal, message: JsonRpcMessage): Promise<unknown> => {
    const params = message.params ?? {};
    switch (message.method) {
      case 'initialize': {
        const asked = params.protocolVersion;
        return {
          protocolVersion:
            typeof asked === 'string' && MCP_PROTOCOL_VERSIONS.includes(asked)
              ? asked
              : MCP_PROTOCOL_VERSIONS[0],
          capabilities: {
            tools: { listChanged: false },
            resources: { subscribe: false, listChanged: false },
          },
          serverInfo: SERVER_INFO,
          ...(options.instructions ? { instructions: options.instructions } : {}),
        };
      }
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: (await visible(principal)).map(listed) };
      case 'tools/call':
        return callTool(principal, params);
      // Records are not enumerated here (list_<plural> pages them); they are reached by template.
      case 'resources/list':
        return { resources: [] };
      case 'resources/templates/list':
        return { resourceTemplates: records.templates(await readsOf(principal)) };
      case 'resources/read':
        return records.read(principal, await readsOf(principal), params.uri);
      default:
        throw new JsonRpcError(JSON_RPC.methodNotFound, `Method not found: ${message.method}`);
    }
  };

  /** The caller, or the refusal to answer: 401 with the challenge, charged to its address. */
  const callerOf = async (request: Request, info?: ConnectionInfo): Promise<Principal | Response> => {
    try {
      const principal = await authenticate(request);
      if (principal.kind === 'anonymous')
        throw new SwitchboardError(
          'unauthorized',
          'Send an API key or OAuth access token as a Bearer token.',
        );
      return principal;
    } catch (error) {
      // Refused credentials count against the caller's address, as on REST: guessing keys is not free.
      if (options.rateLimit) {
        try {
          await options.rateLimit.take(requestContext(request, info), ANONYMOUS, 'read');
        } catch (spent) {
          return problemResponse(spent, rateHeadersOf(spent) ?? {});
        }
      }
      return authErrorResponse(error, request, challengeOptionsOf(requestContext(request, info)));
    }
  };

  /** `GET /mcp`: the caller's change stream, charged as one read. */
  const streamChanges = async (open: OpenChangeStream, request: Request, info?: ConnectionInfo) => {
    if (!request.headers.get('accept')?.includes('text/event-stream'))
      return answer(
        failure(
          null,
          new JsonRpcError(JSON_RPC.invalidRequest, 'GET opens an event stream: accept text/event-stream.'),
        ),
        406,
      );
    const principal = await callerOf(request, info);
    if (principal instanceof Response) return principal;
    try {
      await options.rateLimit?.take(requestContext(request, info), principal, 'read');
    } catch (error) {
      return problemResponse(error, rateHeadersOf(error) ?? {});
    }
    return open(request, principal, await readsOf(principal));
  };

  return async function mcp(request, info) {
    const allow = openChanges ? 'GET, POST' : 'POST';
    if (request.method !== 'POST' && !(request.method === 'GET' && openChanges))
      return new Response(null, { status: 405, headers: { allow } });
    const refused = refusedByOrigin(request, options);
    if (refused) return answer(failure(null, new JsonRpcError(JSON_RPC.invalidRequest, refused)), 403);
    const version = request.headers.get('mcp-protocol-version');
    if (version !== null && !MCP_PROTOCOL_VERSIONS.includes(version))
      return answer(
        failure(
          null,
          new JsonRpcError(JSON_RPC.invalidRequest, `Unsupported MCP-Protocol-Version: ${version}`),
        ),
        400,
      );
    if (request.method === 'GET' && openChanges) return streamChanges(openChanges, request, info);
    const principal = await callerOf(request, info);
    if (principal instanceof Response) return principal;
    let body: unknown;
    try {
      // Read within the limit: a caller's body is never buffered whole before it is measured.
      body = JSON.parse(strictUtf8.decode(await readBody(request, maxBodyBytes)));
    } catch (error) {
      if (isSwitchboardError(error))
        return answer(
          failure(null, new JsonRpcError(JSON_RPC.invalidRequest, error.message)),
          statusOf(error.code),
        );
      return answer(failure(null, new JsonRpcError(JSON_RPC.parseError, 'The body is not UTF-8 JSON.')), 400);
    }
    if (Array.isArray(body))
      return answer(
        failure(
          null,
          new JsonRpcError(JSON_RPC.invalidRequest, 'Batches are not supported: send one message.'),
        ),
        400,
      );
    if (!isMessage(body))
      return answer(
        failure(null, new JsonRpcError(JSON_RPC.invalidRequest, 'Not a JSON-RPC 2.0 message.')),
        400,
      );
    // A notification or a response: accepted, nothing to answer.
    if (body.method === undefined || body.id === undefined) return new Response(null, { status: 202 });
    const message = body;
    const id = body.id;
    let headers: Record<string, string> = {};
    if (options.rateLimit) {
      const tool = message.method === 'tools/call' ? byName.get(String(message.params?.name)) : undefined;
      try {
        headers = {
          ...(await options.rateLimit.take(
            requestContext(request, info),
            principal,
            tool?.writes ? 'write' : 'read',
          )),
        };
      } catch (error) {
        return problemResponse(error, rateHeadersOf(error) ?? {});
      }
    }
    try {
      return answer(result(id, await dispatch(principal, message)), 200, headers);
    } catch (error) {
      if (error instanceof JsonRpcError) return answer(failure(id, error), 200, headers);
      runtime.logger.log('error', 'MCP request failed', { method: message.method, error: String(error) });
      return answer(failure(id, new JsonRpcError(JSON_RPC.internalError, 'Internal error.')), 200, headers);
    }
  };
}

/** A tool as `tools/list` shows it. */
function listed(tool: McpTool): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  };
}

/**
 * A call's result: the output as `structuredContent` and as text. A refusal by the service
 * (`invalid_transition`, `validation_failed`, `conflict`…) is a result with `isError`, for the agent
 * to read, never a transport failure: `<code>: <message>`, then the problem as JSON (code, detail,
 * the fields at fault). Not as `structuredContent`: clients check that against the tool's output
 * schema, the record's, error or not (the SDK's `Client` does). A refusal's code comes back beside the
 * result for the span and `switchboard.mcp.tool.calls`.
 */
async function run(
  tool: McpTool,
  principal: Principal,
  args: Record<string, unknown>,
): Promise<{ result: unknown; code?: string }> {
  try {
    const output = await tool.call(principal, args);
    return {
      result: { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output },
    };
  } catch (error) {
    if (!isSwitchboardError(error)) throw error;
    const problem = {
      code: error.code,
      detail: error.message,
      ...(error.details.length ? { errors: error.details } : {}),
    };
    return {
      code: error.code,
      result: {
        isError: true,
        content: [
          { type: 'text', text: `${error.code}: ${error.message}` },
          { type: 'text', text: JSON.stringify(problem) },
        ],
      },
    };
  }
}

function answer(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
