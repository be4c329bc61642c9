import { type ExecutionResult, GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { type Authenticate, type Principal, resolveTrust } from '../core/auth.js';
import type { Domain } from '../core/domain/index.js';
import type { EventBus } from '../core/event-bus.js';
import { servedScopes } from '../core/resources/scopes.js';
import type { Logger, Runtime } from '../core/runtime.js';
import { inSpan } from '../core/telemetry/index.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { type Admission, admit, type OperationRequest } from './admission.js';
import { createCompiler } from './compile.js';
import { createContext, type GraphQLContext } from './context.js';
import { executeOperation, type OperationRun } from './execute.js';
import { formatError } from './format-error.js';
import { type GraphQLLimits, resolveLimits } from './limits.js';
import { createPreparer, type Prepared } from './prepare.js';
import { createSchema } from './schema.js';

/** What a GraphQL block reads from the runtime: its logger, and the telemetry its spans go to. */
export type GraphQLRuntime = Pick<Runtime, 'logger' | 'telemetry' | 'look'>;

/**
 * The settings the HTTP handler and the WebSocket server share (no dependency: those are the
 * runtime's, or the other blocks' in {@link GraphQLParts}).
 */
export interface GraphQLSharedConfig {
  /** The schema to serve; `createSchema()` when omitted. Pass your own to extend it. */
  readonly schema?: GraphQLSchema;
  /** Schema introspection and "Did you mean …?" hints. Default true; turn off in production if you wish. */
  readonly introspection?: boolean;
  /** Overrides of {@link DEFAULT_LIMITS}. */
  readonly limits?: Partial<GraphQLLimits>;
  /**
   * Compile queries and mutations with graphql-jit, once per cached document. Default true; where the
   * runtime refuses code generation (`new Function`) graphql-js runs them anyway, as it does with false.
   */
  readonly compile?: boolean;
  /**
   * How often the credentials of open subscriptions (WebSocket, event stream) are checked again: a
   * connection whose access token expired or was revoked, or whose API key was revoked, ends within
   * this time (WebSocket close 4403). Each distinct credential is checked once per round. Default 30 s.
   */
  readonly credentialCheckMs?: number;
}

/** What a GraphQL block is given by the other blocks: the domain, the bus, the authenticator, budgets. */
export interface GraphQLParts {
  readonly domain: Domain;
  /** Feeds subscriptions; `message.created` events reach `onNewMessage` subscribers. */
  readonly bus: EventBus;
  /**
   * Turns credentials into a principal: the OAuth guard, or `trustEveryone` said explicitly (tests, a
   * gateway that authenticates upstream), as every other block requires.
   */
  readonly authenticate: Authenticate;
  /**
   * Budgets per caller, over HTTP, Server-Sent Events and WebSocket alike: a query or mutation costs its
   * fields, a list field its selection times its `limit` (`graphql`); a subscription one `subscribe`; a
   * refused document its tokens. Over budget the request is refused as a whole (429 over HTTP) with
   * `extensions.code: "rate_limited"`. Off when omitted.
   */
  readonly rateLimit?: RateLimiter;
}

/** What the HTTP handler and the WebSocket server are given besides the runtime. */
export interface GraphQLOptions extends GraphQLSharedConfig, GraphQLParts {}

export interface Engine {
  readonly schema: GraphQLSchema;
  readonly limits: GraphQLLimits;
  readonly logger: Logger;
  readonly introspection: boolean;
  readonly rateLimit: RateLimiter | undefined;
  readonly authenticate: Authenticate;
  prepare(query: string): Prepared;
  /** The operation a request asks to run and its charge, or the errors refusing it (see `admit`). */
  admit(request: OperationRequest): Admission;
  /** Runs a query or mutation (compiled when it can be); subscriptions go through graphql-ws. */
  execute(run: OperationRun): Promise<ExecutionResult>;
  format(errors: readonly GraphQLError[]): GraphQLFormattedError[];
  /** The result with its errors masked, leaving alone those already masked (a subscription group's). */
  mask(result: ExecutionResult): ExecutionResult;
  context(
    principal: Principal,
    extra?: { request?: Request; dropSlowSubscriber?: () => void },
  ): GraphQLContext;
}

/** A span per query or mutation goes to the runtime's telemetry (`query GetClient`: never its variables). */
export function createEngine(runtime: GraphQLRuntime, options: GraphQLOptions): Engine {
  const schema = options.schema ?? createSchema();
  const limits = resolveLimits(options.limits);
  const { logger } = runtime;
  const introspection = options.introspection ?? true;
  const compile = options.compile === false ? undefined : createCompiler(schema, { logger });
  const prepare = createPreparer(schema, { limits, introspection, compile });
  const formatOptions = { logger, hideSuggestions: !introspection };
  const { tracer } = runtime.telemetry;
  return {
    schema,
    limits,
    logger,
    introspection,
    rateLimit: options.rateLimit,
    // Trusted, a caller holds every resource's scopes, a host resource's as a built-in's.
    authenticate: resolveTrust(options.authenticate, servedScopes(options.domain.resources)),
    prepare,
    admit: (request) => admit(prepare, limits, request),
    execute: (run) => {
      const type = run.operation.operation;
      const name = run.operation.name?.value;
      return inSpan(tracer, name ? `${type} ${name}` : type, {}, (span) => {
        // Described only when it records: nothing is built for a span no one sees.
        if (span.isRecording()) {
          span.setAttribute('graphql.operation.type', type);
          if (name) span.setAttribute('graphql.operation.name', name);
        }
        return executeOperation(schema, run);
      });
    },
    format: (errors) => errors.map((error) => formatError(error, formatOptions)),
    mask: (result) =>
      result.errors?.length
        ? {
            ...result,
            errors: result.errors.map((error) =>
              error instanceof GraphQLError
                ? (formatError(error, formatOptions) as unknown as GraphQLError)
                : error,
            ),
          }
        : result,
    context: (principal, extra = {}) =>
      createContext({ principal, domain: options.domain, bus: options.bus, limits, logger, ...extra }),
  };
}
