import { execute, GraphQLError, getOperationAST, OperationTypeNode, subscribe } from 'graphql';
import { CloseCode, type Context, makeServer, type Server } from 'graphql-ws';
import type { Principal } from '../core/auth.js';
import { isSwitchboardError } from '../core/errors.js';
import { createCredentialWatch } from './credential-watch.js';
import { createEngine, type Engine, type GraphQLOptions } from './engine.js';
import type { GraphQLLimits } from './limits.js';
import { createSubscriptionGroups, type SubscriptionOperation } from './subscription-groups.js';

/** What a runtime hookup hands to the server with each socket. */
export interface GraphQLWebSocketExtra {
  /** The HTTP upgrade request; its headers are the fallback for credentials. */
  readonly request?: Request;
  /** Closes the socket; used to drop a subscriber that does not keep up (close code 1013). */
  readonly close?: (code: number, reason: string) => void;
  /**
   * Sends a text message at once, with the same back-pressure check as the socket's `send`. With it,
   * subscription events go out as one frame built from the group's serialised result (no per-subscriber
   * serialisation or promise); without it they go through graphql-ws like any other message.
   */
  readonly sendText?: (data: string) => void;
}

/** A graphql-ws server core, independent of any runtime: hook it to `ws`, Deno or Bun sockets. */
export interface GraphQLWebSocketServer extends Server<GraphQLWebSocketExtra> {
  /** The limits it enforces; runtime hookups take the largest message size from here. */
  readonly limits: GraphQLLimits;
  /** Subscriptions running, and the shared executions serving them (one per operation and visibility). */
  subscriptions(): { subscribers: number; groups: number };
}

export interface GraphQLWebSocketOptions extends GraphQLOptions {
  /** How long a socket may stay open without `connection_init` (close 4408). Default 3 s. */
  readonly connectionInitWaitTimeout?: number;
}

/** Close code for a subscriber that fell too far behind (RFC 6455 §7.4.1 "Try Again Later"). */
export const SLOW_SUBSCRIBER_CLOSE_CODE = 1013;

/**
 * The GraphQL over WebSocket server (graphql-transport-ws protocol) with the same schema, limits,
 * validation cache, error masking and authentication as the HTTP handler. Credentials travel in the
 * `connection_init` payload as header fields (`{ "Authorization": "Bearer …" }`) and go through the same
 * `authenticate`; bad ones close the socket with 4403 Forbidden, as the protocol asks.
 *
 * @example
 * const server = createGraphQLWebSocketServer({ domain, bus, authenticate });
 * serve({ fetch, websockets: [graphqlWebSocketRoute(server)] }); // switchboard-kit/node
 */
export function createGraphQLWebSocketServer(options: GraphQLWebSocketOptions): GraphQLWebSocketServer {
  // graphql-ws runs every operation itself through graphql-js: nothing here would use a compilation.
  const engine = createEngine({ ...options, compile: false });
  const principals = new WeakMap<object, Principal>();
  const operations = new WeakMap<object, Set<string>>();
  const groups = createSubscriptionGroups({ format: (errors) => engine.format(errors) });
  const credentials = createCredentialWatch({
    authenticate: engine.authenticate,
    intervalMs: options.credentialCheckMs ?? 30_000,
    logger: engine.logger,
  });
  const unwatch = new WeakMap<object, () => void>();
  // The context `onSubscribe` gives a subscription, for `subscribe` (graphql-ws passes it only the args).
  const tickets = new WeakSet<SubscriptionTicket>();

  const server = makeServer<Record<string, unknown> | undefined, GraphQLWebSocketExtra>({
    connectionInitWaitTimeout: options.connectionInitWaitTimeout ?? 3_000,
    // Our own graphql functions, so execution uses the same graphql copy that built the schema.
    execute: (args) => execute(args),
    subscribe(args) {
      const ticket = args.contextValue as SubscriptionTicket;
      if (!tickets.has(ticket)) return subscribe(args);
      const { operation, id, extra } = ticket;
      const { sendText, close } = extra;
      const frame = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
      return groups.join(operation, {
        ...(sendText ? { send: (payload: string) => sendText(`${frame}${payload}}`) } : {}),
        maxQueue: engine.limits.maxSubscriberQueue,
        onOverflow: () => close?.(SLOW_SUBSCRIBER_CLOSE_CODE, 'Subscriber too slow'),
      });
    },
    async onConnect(ctx) {
      const request = credentialsRequest(ctx);
      const principal = await authenticate(engine, request);
      if (!principal) return false;
      principals.set(ctx, principal);
      const forbidden = () => ctx.extra.close?.(CloseCode.Forbidden, 'Forbidden');
      const credential = request.headers.get('authorization');
      unwatch.set(
        ctx,
        credentials.watch(credential, () => credentialsRequest(ctx), forbidden),
      );
      return true;
    },
    onClose(ctx) {
      unwatch.get(ctx)?.();
    },
    onSubscribe(ctx, id, payload) {
      const principal = principals.get(ctx);
      if (!principal)
        return [new GraphQLError('Not authenticated.', { extensions: { code: 'unauthorized' } })];
      if (payload.query.length > engine.limits.maxBodyBytes)
        return [
          new GraphQLError(`The query is larger than the limit of ${engine.limits.maxBodyBytes} bytes.`, {
            extensions: { code: 'payload_too_large' },
          }),
        ];
      const prepared = engine.prepare(payload.query);
      if (!prepared.ok) return prepared.errors;
      const operationName = payload.operationName ?? undefined;
      const operation = getOperationAST(prepared.document, operationName);
      if (!operation)
        return [
          new GraphQLError('Name the operation to run in "operationName".', {
            extensions: { code: 'bad_request' },
          }),
        ];
      const running = operations.get(ctx) ?? new Set<string>();
      if (running.size >= engine.limits.maxOperationsPerSocket)
        return [
          new GraphQLError(
            `At most ${engine.limits.maxOperationsPerSocket} operations may run at once on one connection.`,
            { extensions: { code: 'too_many_operations', limit: engine.limits.maxOperationsPerSocket } },
          ),
        ];
      operations.set(ctx, running.add(id));
      const args = {
        schema: engine.schema,
        document: prepared.document,
        operationName,
        variableValues: payload.variables ?? undefined,
      };
      if (operation.operation !== OperationTypeNode.SUBSCRIPTION) {
        const { request } = ctx.extra;
        return { ...args, contextValue: engine.context(principal, request ? { request } : {}) };
      }
      // A subscription joins the group of subscribers that see the same; the group's context, made
      // once, carries the principal but no request. Its own context is only this small ticket.
      const ticket: SubscriptionTicket = {
        id,
        extra: ctx.extra,
        operation: {
          schema: engine.schema,
          query: payload.query,
          document: prepared.document,
          operationName,
          variables: payload.variables,
          principal,
          context: () => engine.context(principal),
        },
      };
      tickets.add(ticket);
      return { ...args, contextValue: ticket };
    },
    onComplete(ctx, id) {
      operations.get(ctx)?.delete(id);
    },
    onError: (_ctx, _id, _payload, errors) => engine.format(errors),
    // Results of a subscription group come with their errors masked already.
    onNext: (_ctx, _id, _payload, _args, result) =>
      result.errors?.length
        ? {
            ...result,
            errors: result.errors.map((error) =>
              error instanceof GraphQLError ? engine.format([error])[0]! : error,
            ),
          }
        : undefined,
  });
  return {
    opened: (socket, extra) => server.opened(socket, extra),
    limits: engine.limits,
    subscriptions: () => groups.counts(),
  };
}

interface SubscriptionTicket {
  readonly id: string;
  readonly extra: GraphQLWebSocketExtra;
  readonly operation: SubscriptionOperation;
}

/** The upgrade request's headers, overridden by header-like fields of the `connection_init` payload. */
function credentialsRequest(
  ctx: Context<Record<string, unknown> | undefined, GraphQLWebSocketExtra>,
): Request {
  const upgrade = ctx.extra.request;
  const headers = new Headers(upgrade?.headers);
  for (const [name, value] of Object.entries(ctx.connectionParams ?? {}).slice(0, 20)) {
    // Only header-like string fields are credentials; anything else in the payload is ignored.
    if (typeof value === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(name)) headers.set(name, value);
  }
  return new Request(upgrade?.url ?? 'http://localhost/graphql', { headers });
}

async function authenticate(engine: Engine, request: Request): Promise<Principal | null> {
  try {
    return await engine.authenticate(request);
  } catch (error) {
    if (isSwitchboardError(error) && (error.code === 'unauthorized' || error.code === 'forbidden'))
      return null;
    engine.logger.log('error', 'graphql-ws authentication failed', { error: String(error) });
    // graphql-ws closes with 4500 and this message as the reason: keep it generic.
    throw new Error('Internal server error');
  }
}
