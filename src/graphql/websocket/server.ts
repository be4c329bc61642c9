import { type ExecutionResult, execute, GraphQLError, OperationTypeNode, subscribe } from 'graphql';
import {
  CloseCode,
  type Context,
  makeServer,
  type Server,
  type WebSocket as TransportSocket,
} from 'graphql-ws';
import type { Principal } from '../../core/auth.js';
import { isSwitchboardError } from '../../core/errors.js';
import { createCredentialWatch, type Watched } from '../../http/credential-watch.js';
import type { Charge } from '../admission.js';
import {
  createEngine,
  type Engine,
  type GraphQLParts,
  type GraphQLRuntime,
  type GraphQLSharedConfig,
} from '../engine.js';
import type { GraphQLLimits } from '../limits.js';
import {
  createSubscriptionGroups,
  type Subscriber,
  type Subscription,
  type SubscriptionOperation,
} from '../subscriptions/groups.js';
import { chargeOperation, MessageBudget } from './budgets.js';

/** What a runtime hookup hands to the server with each socket. */
export interface GraphQLWebSocketExtra {
  /** The HTTP upgrade request; its headers are the fallback for credentials. */
  readonly request?: Request;
  /**
   * The peer's network address, which the upgrade request does not carry: the budgets of a socket
   * without credentials are its address's.
   */
  readonly clientAddress?: string | undefined;
  /** Closes the socket; used to drop a subscriber that does not keep up (close code 1013). */
  readonly close?: (code: number, reason: string) => void;
  /**
   * Sends a text message at once, with the same back-pressure check as the socket's `send`. With it,
   * subscription events go out as one frame built from the group's serialised result (no per-subscriber
   * serialisation or promise); without it they go through graphql-ws like any other message.
   */
  readonly sendText?: (data: string) => void;
  /**
   * With `uncork`: holds what `sendText` sends until `uncork`, to write it at once. An event for several
   * subscriptions of one socket goes out in one write instead of one per subscription.
   */
  readonly cork?: () => void;
  readonly uncork?: () => void;
}

/** A graphql-ws server core, independent of any runtime: hook it to `ws`, Deno or Bun sockets. */
export interface GraphQLWebSocketServer extends Server<GraphQLWebSocketExtra> {
  /** The limits it enforces; runtime hookups take the largest message size from here. */
  readonly limits: GraphQLLimits;
  /** Subscriptions running, and the shared executions serving them (one per operation and visibility). */
  subscriptions(): { subscribers: number; groups: number };
  /** Sockets open now. */
  sockets(): number;
}

/**
 * Options of {@link createGraphQLWebSocketServer}: the shared GraphQL options (domain, bus, authentication,
 * schema, limits) plus the `connection_init` timeout.
 */
/** Settings of {@link createGraphQLWebSocketServer}: the shared GraphQL settings, plus its own. */
export interface GraphQLWebSocketConfig extends GraphQLSharedConfig {
  /** How long a socket may stay open without `connection_init` (close 4408). Default 3 s. */
  readonly connectionInitWaitTimeout?: number;
}

/** Options of {@link createGraphQLWebSocketServer}: its settings and what the other blocks give it. */
export interface GraphQLWebSocketOptions extends GraphQLWebSocketConfig, GraphQLParts {}

/** Close code for a subscriber that fell too far behind (RFC 6455 §7.4.1 "Try Again Later"). */
export const SLOW_SUBSCRIBER_CLOSE_CODE = 1013;

/**
 * The GraphQL over WebSocket server (graphql-transport-ws protocol) with the same schema, limits,
 * validation cache, error masking and authentication as the HTTP handler. Credentials travel in the
 * `connection_init` payload as header fields (`{ "Authorization": "Bearer …" }`) and go through the same
 * `authenticate`; bad ones close the socket with 4403 Forbidden, as the protocol asks.
 *
 * With `rateLimit`, operations take from the caller's budgets as over HTTP (the principal from
 * `connection_init`, or the upgrade request's address): a query or mutation its cost in `graphql`, a
 * subscription 1 in `subscribe`, a refused document its tokens in `graphql`. One over budget gets an
 * `error` message with `extensions: { code: "rate_limited", retryAfter }` and the socket stays open.
 * Each socket also has a budget of messages (`message`, counted in process); beyond it the socket is
 * closed with 1008.
 *
 * @example
 * const server = createGraphQLWebSocketServer(runtime, { domain, bus, authenticate });
 * serve({ fetch, websockets: [graphqlWebSocketRoute(server)] }); // switchboard-kit/node
 */
export function createGraphQLWebSocketServer(
  runtime: GraphQLRuntime,
  options: GraphQLWebSocketOptions,
): GraphQLWebSocketServer {
  // graphql-ws runs every operation itself through graphql-js: nothing here would use a compilation.
  const engine = createEngine(runtime, { ...options, compile: false });
  // The socket whose frames are held (see `SocketSubscriber.send`), written once the event has gone
  // to every subscriber of its group.
  let corked: Connection | undefined;
  const uncork = (): void => {
    corked?.extra.uncork?.();
    corked = undefined;
  };
  const groups = createSubscriptionGroups({ format: (errors) => engine.format(errors), afterEvent: uncork });
  const credentials = createCredentialWatch({
    authenticate: engine.authenticate,
    intervalMs: options.credentialCheckMs ?? 30_000,
    logger: engine.logger,
  });
  // One record per socket, found from graphql-ws's context through the socket's `extra`.
  const connections = new WeakMap<GraphQLWebSocketExtra, Connection>();
  // The context `onSubscribe` gives a subscription, for `subscribe` (graphql-ws passes it only the args).
  const tickets = new WeakSet<SubscriptionTicket>();
  const limiter = engine.rateLimit;

  /**
   * Takes what a request is charged from the caller's budget: nothing when it fits (or budgets are
   * off), else the error to answer its id with. The socket stays open either way.
   */
  function charge(connection: Connection, charged: Charge | undefined): Promise<GraphQLError | undefined> {
    if (!limiter || connection.caller === undefined || !charged) return Promise.resolve(undefined);
    return chargeOperation(limiter, connection.caller, charged, engine.logger);
  }

  /** A refusal's errors once it is charged; a refusal over budget is answered `rate_limited` instead. */
  async function refuse(connection: Connection, refusal: Refusal): Promise<readonly GraphQLError[]> {
    const limited = await charge(connection, refusal.charge);
    return limited ? [limited] : refusal.errors;
  }

  /** The checks every operation passes, wherever it is handled: its refusal, or what to run. */
  function admit(connection: Connection, payload: SubscribePayload): Refusal | Admitted {
    if (!connection.principal)
      return { errors: [new GraphQLError('Not authenticated.', { extensions: { code: 'unauthorized' } })] };
    if (payload.query.length > engine.limits.maxBodyBytes)
      return {
        errors: [
          new GraphQLError(`The query is larger than the limit of ${engine.limits.maxBodyBytes} bytes.`, {
            extensions: { code: 'payload_too_large' },
          }),
        ],
      };
    const admission = engine.admit(payload);
    if (!admission.ok) return admission;
    const { prepared, operation } = admission;
    if (connection.operations.size >= engine.limits.maxOperationsPerSocket)
      return {
        errors: [
          new GraphQLError(
            `At most ${engine.limits.maxOperationsPerSocket} operations may run at once on one connection.`,
            { extensions: { code: 'too_many_operations', limit: engine.limits.maxOperationsPerSocket } },
          ),
        ],
        charge: admission.refusal,
      };
    const operationName = payload.operationName ?? undefined;
    return {
      principal: connection.principal,
      operation: operation.operation,
      charge: admission.charge,
      group: {
        schema: engine.schema,
        query: payload.query,
        document: prepared.document,
        operationName,
        variables: payload.variables,
        principal: connection.principal,
        context: () => engine.context(connection.principal!),
      },
    };
  }

  // Ours, not graphql-ws's: its timer would stay referenced by each socket for the socket's life.
  const initWaitMs = options.connectionInitWaitTimeout ?? 3_000;
  const server = makeServer<Record<string, unknown> | undefined, GraphQLWebSocketExtra>({
    connectionInitWaitTimeout: 0,
    // Our own graphql functions, so execution uses the same graphql copy that built the schema.
    execute: (args) => execute(args),
    subscribe(args) {
      const ticket = args.contextValue as SubscriptionTicket;
      if (!tickets.has(ticket)) return subscribe(args);
      const { close } = ticket.extra;
      return groups.join(ticket.operation, {
        maxQueue: engine.limits.maxSubscriberQueue,
        onOverflow: () => close?.(SLOW_SUBSCRIBER_CLOSE_CODE, 'Subscriber too slow'),
      });
    },
    async onConnect(ctx) {
      const connection = connections.get(ctx.extra);
      connection?.initReceived();
      const request = credentialsRequest(ctx);
      const principal = await authenticate(engine, request);
      if (!principal || !connection) return false;
      connection.graphqlWs = ctx;
      connection.principal = principal;
      // The upgrade request's address, never the payload's header fields: a client writes those.
      if (limiter) {
        const { request = unknownPeer(), clientAddress } = ctx.extra;
        connection.caller = limiter.callerOf({ request, clientAddress }, principal);
      }
      connection.credential = request.headers.get('authorization');
      credentials.watch(connection.credential, connection);
      return true;
    },
    onClose(ctx) {
      const connection = connections.get(ctx.extra);
      if (connection?.principal) credentials.unwatch(connection.credential, connection);
    },
    async onSubscribe(ctx, id, payload) {
      const connection = connections.get(ctx.extra);
      if (!connection)
        return [new GraphQLError('Not authenticated.', { extensions: { code: 'unauthorized' } })];
      const admitted = admit(connection, payload);
      if (isRefusal(admitted)) return [...(await refuse(connection, admitted))];
      connection.operations.add(id);
      const refusal = limiter && (await charge(connection, admitted.charge));
      if (refusal) {
        connection.operations.delete(id);
        return [refusal];
      }
      const args = {
        schema: engine.schema,
        document: admitted.group.document,
        operationName: admitted.group.operationName,
        variableValues: payload.variables ?? undefined,
      };
      if (admitted.operation !== OperationTypeNode.SUBSCRIPTION) {
        const { request } = ctx.extra;
        return { ...args, contextValue: engine.context(admitted.principal, request ? { request } : {}) };
      }
      // Only on a transport that cannot send frames itself (see `intercept`): a ticket as its context.
      const ticket: SubscriptionTicket = { extra: ctx.extra, operation: admitted.group };
      tickets.add(ticket);
      return { ...args, contextValue: ticket };
    },
    onComplete(ctx, id) {
      connections.get(ctx.extra)?.operations.delete(id);
    },
    onError: (_ctx, _id, _payload, errors) => engine.format(errors),
    // Results of a subscription group come with their errors masked already.
    onNext: (_ctx, _id, _payload, _args, result) =>
      result.errors?.length ? engine.mask(result as ExecutionResult) : undefined,
  });

  /**
   * One subscription served beside graphql-ws: its frames, as graphql-ws would write them, sent by
   * the transport's `sendText`. A class, so a subscriber costs one small object, not a set of closures.
   */
  class SocketSubscriber implements Subscriber {
    readonly maxQueue = engine.limits.maxSubscriberQueue;
    subscription?: Subscription;

    constructor(
      readonly connection: Connection,
      readonly id: string,
      /** The id as JSON, for the frames. */
      readonly quoted: string,
    ) {}

    send(payload: string): void {
      const { connection } = this;
      // Several subscriptions on this socket: its frames of this event are written at once.
      if (corked !== connection && connection.subscriptions.size > 1 && connection.extra.cork) {
        uncork();
        connection.extra.cork();
        corked = connection;
      }
      connection.extra.sendText!(`{"id":${this.quoted},"type":"next","payload":${payload}}`);
    }

    onOverflow(): void {
      this.connection.extra.close?.(SLOW_SUBSCRIBER_CLOSE_CODE, 'Subscriber too slow');
    }

    onEnd(outcome: { readonly last?: ExecutionResult } | { readonly error: unknown }): void {
      const { connection, id, quoted } = this;
      if (connection.subscriptions.get(id) !== this.subscription) return;
      connection.subscriptions.delete(id);
      connection.operations.delete(id);
      const { extra } = connection;
      if ('error' in outcome) {
        const reason = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
        const errors = engine.format([new GraphQLError(reason)]);
        extra.sendText!(`{"id":${quoted},"type":"error","payload":${JSON.stringify(errors)}}`);
        return;
      }
      // Not through `send`: no event is going out, so nothing would uncork the socket.
      if (outcome.last)
        extra.sendText!(`{"id":${quoted},"type":"next","payload":${JSON.stringify(outcome.last)}}`);
      extra.sendText!(`{"id":${quoted},"type":"complete"}`);
    }
  }

  /**
   * Subscriptions on a transport that sends text itself bypass graphql-ws's per-subscription machinery
   * (its parsed message, emit closures and a pending `for await` each): a subscriber is its group
   * membership and an entry here, its frames built from the group's serialised results. Everything
   * else (init, ping, queries, mutations, protocol errors) is graphql-ws's. Answers undefined to pass
   * the message on.
   */
  function intercept(connection: Connection, data: string): Promise<void> | undefined {
    const { extra } = connection;
    let message: { type?: unknown; id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(data);
    } catch {
      return undefined;
    }
    const id = message.id;
    if (typeof id !== 'string' || id === '') return undefined;
    if (message.type === 'complete') {
      const subscription = connection.subscriptions.get(id);
      if (!subscription) return undefined;
      connection.subscriptions.delete(id);
      connection.operations.delete(id);
      return subscription instanceof Reservation ? DONE : subscription.return().then(() => undefined);
    }
    if (message.type !== 'subscribe' || !connection.principal || !isSubscribePayload(message.payload))
      return undefined;
    if (
      connection.subscriptions.has(id) ||
      (connection.graphqlWs && id in connection.graphqlWs.subscriptions)
    ) {
      extra.close?.(CloseCode.SubscriberAlreadyExists, `Subscriber for ${id} already exists`);
      return DONE;
    }
    const quoted = JSON.stringify(id);
    const admitted = admit(connection, message.payload);
    if (isRefusal(admitted)) {
      const send = (errors: readonly GraphQLError[]) =>
        extra.sendText!(`{"id":${quoted},"type":"error","payload":${JSON.stringify(engine.format(errors))}}`);
      if (!limiter || !admitted.charge) {
        send(admitted.errors);
        return DONE;
      }
      return refuse(connection, admitted).then(send);
    }
    if (admitted.operation !== OperationTypeNode.SUBSCRIPTION) return undefined;
    connection.operations.add(id);
    if (!limiter) {
      joinGroup(connection, id, quoted, admitted);
      return DONE;
    }
    // The id is held while the budget is asked: a `complete` meanwhile, or the socket closing, cancels.
    const reservation = new Reservation();
    connection.subscriptions.set(id, reservation);
    return charge(connection, admitted.charge).then((refusal) => {
      if (connection.subscriptions.get(id) !== reservation) return;
      if (!refusal) return joinGroup(connection, id, quoted, admitted);
      connection.subscriptions.delete(id);
      connection.operations.delete(id);
      extra.sendText!(
        `{"id":${quoted},"type":"error","payload":${JSON.stringify(engine.format([refusal]))}}`,
      );
    });
  }

  /** Joins an admitted subscription's group, its frames sent by the transport's `sendText`. */
  function joinGroup(connection: Connection, id: string, quoted: string, admitted: Admitted): void {
    const subscriber = new SocketSubscriber(connection, id, quoted);
    const subscription = groups.join(admitted.group, subscriber);
    subscriber.subscription = subscription;
    connection.subscriptions.set(id, subscription);
  }

  let open = 0;
  return {
    opened(socket, extra) {
      open++;
      const messages = limiter && new MessageBudget(limiter.local('message'), socket);
      const connection = new Connection(socket, extra, extra.sendText ? intercept : undefined, messages);
      connections.set(extra, connection);
      if (initWaitMs > 0 && Number.isFinite(initWaitMs)) connection.awaitInit(initWaitMs);
      const closed = server.opened(connection, extra);
      // graphql-ws has asked for the messages (in `opened`): every one passes through `receive` first.
      socket.onMessage((data) => connection.receive(data));
      return async (code, reason) => {
        open--;
        connection.initReceived();
        const subscriptions = [...connection.subscriptions.values()];
        connection.subscriptions.clear();
        await Promise.all(
          subscriptions.map((subscription) =>
            subscription instanceof Reservation ? undefined : subscription.return(),
          ),
        );
        await closed(code, reason);
      };
    },
    limits: engine.limits,
    subscriptions: () => groups.counts(),
    sockets: () => open,
  };
}

const DONE = Promise.resolve();

/** Stands for the upgrade request when the runtime hookup gave none: its address is unknown. */
function unknownPeer(): Request {
  return new Request('http://localhost/graphql');
}

/** A subscription whose budget is being taken (see `intercept`): its id is held meanwhile. */
class Reservation {
  readonly reserved = true;
}

/** Handles a message beside graphql-ws (see `intercept`), or answers undefined to pass it on. */
type Intercept = (connection: Connection, data: string) => Promise<void> | undefined;

/**
 * What the server keeps per socket, and the transport graphql-ws is given: every message reaches
 * `receive` first. A class: its methods, credential watch included, are shared by every socket.
 */
class Connection implements Watched, TransportSocket {
  /** Set once `connection_init` is accepted. */
  principal?: Principal;
  graphqlWs?: Context<Record<string, unknown> | undefined, GraphQLWebSocketExtra>;
  /** The `Authorization` header its credentials came in, once accepted. */
  credential: string | null = null;
  /** Every operation in flight, graphql-ws's and ours, for `maxOperationsPerSocket`. */
  readonly operations = new Set<string>();
  /** The subscriptions served beside graphql-ws (see `intercept`), by id. */
  readonly subscriptions = new Map<string, Subscription | Reservation>();
  /** Whose budgets its operations take from (with rate limits), found at `connection_init`. */
  caller?: string;

  /** graphql-ws's handler of the messages it is passed. */
  #callback?: (data: string) => Promise<void>;
  /** Closes the socket if `connection_init` does not come in time; dropped once it does. */
  #initTimer?: ReturnType<typeof setTimeout>;

  constructor(
    readonly socket: TransportSocket,
    readonly extra: GraphQLWebSocketExtra,
    readonly intercept: Intercept | undefined,
    readonly messages: MessageBudget | undefined,
  ) {}

  get protocol(): string {
    return this.socket.protocol;
  }

  send(data: string): Promise<void> | void {
    return this.socket.send(data);
  }

  close(code?: number, reason?: string): Promise<void> | void {
    return this.socket.close(code, reason);
  }

  onMessage(callback: (data: string) => Promise<void>): void {
    this.#callback = callback;
  }

  /** Every message passes here once: its budget first, then ours or graphql-ws's handling. */
  receive(data: string): Promise<void> {
    if (this.messages && !this.messages.take()) return DONE;
    return this.intercept?.(this, data) || this.#callback?.(data) || DONE;
  }

  awaitInit(ms: number): void {
    this.#initTimer = setTimeout(() => {
      this.#initTimer = undefined;
      this.socket.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
    }, ms);
  }

  /** `connection_init` came (or the socket closed): the timer goes, and nothing holds it. */
  initReceived(): void {
    if (this.#initTimer === undefined) return;
    clearTimeout(this.#initTimer);
    this.#initTimer = undefined;
  }

  request(): Request {
    return credentialsRequest(this.graphqlWs!);
  }

  revoked(): void {
    this.extra.close?.(CloseCode.Forbidden, 'Forbidden');
  }
}

interface SubscribePayload {
  readonly query: string;
  readonly operationName?: string | null;
  readonly variables?: Record<string, unknown> | null;
}

interface Admitted {
  readonly principal: Principal;
  readonly operation: OperationTypeNode;
  /** What it takes from the caller's budget (see `admit`). */
  readonly charge: Charge;
  readonly group: SubscriptionOperation;
}

/** Errors to answer an operation's id with, and what they are charged once its document was read. */
interface Refusal {
  readonly errors: readonly GraphQLError[];
  readonly charge?: Charge;
}

const isRefusal = (value: Refusal | Admitted): value is Refusal => 'errors' in value;

/** The shape graphql-ws requires of a subscribe payload; anything else it refuses (4400) itself. */
function isSubscribePayload(value: unknown): value is SubscribePayload {
  if (typeof value !== 'object' || value === null) return false;
  const { query, operationName, variables, extensions } = value as Record<string, unknown>;
  const optionalObject = (v: unknown) =>
    v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v));
  return (
    typeof query === 'string' &&
    (operationName === undefined || operationName === null || typeof operationName === 'string') &&
    optionalObject(variables) &&
    optionalObject(extensions)
  );
}

interface SubscriptionTicket {
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
