import { type ExecutionResult, GraphQLError, OperationTypeNode } from 'graphql';
import { createHandler, type Request as SseRequest } from 'graphql-sse';
import type { Principal } from '../../core/auth.js';
import { isSwitchboardError, type SwitchboardError } from '../../core/errors.js';
import { readText } from '../../http/body.js';
import { createCredentialWatch } from '../../http/credential-watch.js';
import type { RateHeaders } from '../../http/rate-limit.js';
import type { RequestContext, Requester } from '../../http/request-context.js';
import type { Engine } from '../engine.js';
import { createSubscriptionGroups, type Subscription } from '../subscriptions/groups.js';

/** GraphQL over Server-Sent Events on the GraphQL path, for clients without WebSockets. */
export interface EventStreams {
  /** Whether the request asks for an event stream (`Accept: text/event-stream`). */
  accepts(request: Request): boolean;
  /** Answers it: a `text/event-stream` of the operation's results, or an error as JSON. */
  handle(context: RequestContext, principal: Principal): Promise<Response>;
  subscriptions(): { subscribers: number; groups: number };
}

export interface EventStreamOptions {
  /** How often the credentials of open streams are checked again (default 30 s): see the WebSocket option. */
  readonly credentialCheckMs?: number;
}

// A type, not an interface: graphql-sse wants a context that is a plain record.
type StreamContext = {
  readonly principal: Principal;
  readonly request: Request;
  /** Whom the budgets charge: the request and its peer's address. */
  readonly requester: Requester;
  /** A result handed to graphql-sse and not yet read from the stream: the next one waits for it. */
  unread: boolean;
  /** Lets the waiting result through (read, or the stream ended). */
  wake?: () => void;
  ended: boolean;
  /** The subscription the stream carries, once it has one. */
  subscription?: Subscription;
  /** The RateLimit fields of the budget the request was charged to, for the stream's answer. */
  limits?: RateHeaders | undefined;
  /** Ends the stream at once (a client that does not read). */
  end(): void;
};

const encoder = new TextEncoder();
const REVOKED = 'The credentials of this stream are no longer accepted (expired or revoked): sign in again.';

/**
 * A request error (no `data`) as the stream's one result: graphql-sse takes an answer from
 * `onSubscribe` for a result only when it has `data`, so it comes as a one-result stream.
 */
async function* once(result: ExecutionResult): AsyncGenerator<ExecutionResult> {
  yield result;
}

const failure = (code: string, message: string): AsyncGenerator<ExecutionResult> =>
  once({ errors: [new GraphQLError(message, { extensions: { code } })] });

/** The first authentication (401) or authorization (403) failure among the errors, as it was thrown. */
function deniedBy(errors: readonly GraphQLError[] | undefined): SwitchboardError | undefined {
  for (const { originalError } of errors ?? [])
    if (isSwitchboardError(originalError) && (originalError.status === 401 || originalError.status === 403))
      return originalError;
  return undefined;
}

/**
 * The graphql-sse protocol's "distinct connections" mode (one stream per operation, `event: next` per
 * result, then `event: complete`) through the graphql-sse package, with the HTTP endpoint's
 * authentication, limits, masking and scopes. Subscriptions share executions as over WebSocket. A
 * stream whose client reads too slowly ends, and so does one whose credentials stop being accepted.
 * Its single-connection mode (stream reservations by token) is not offered.
 */
export function createEventStreams(engine: Engine, options: EventStreamOptions = {}): EventStreams {
  const groups = createSubscriptionGroups({ format: (errors) => engine.format(errors) });
  const credentials = createCredentialWatch({
    authenticate: engine.authenticate,
    intervalMs: options.credentialCheckMs ?? 30_000,
    logger: engine.logger,
  });
  const handler = createHandler<Request, StreamContext, StreamContext>({
    // Only the distinct connections mode: no token, so no stream is ever reserved.
    authenticate: () => undefined,
    // Every operation is answered by `onSubscribe` (validated by `engine.prepare`, run by the engine or
    // a subscription group): graphql-sse never executes, validates or parses one itself.
    context: (req) => req.context,
    async onSubscribe(req, params) {
      const { principal, request } = req.context;
      const admission = engine.admit(params);
      const getMutation =
        admission.ok &&
        request.method === 'GET' &&
        admission.operation.operation === OperationTypeNode.MUTATION;
      // Charged as over plain HTTP and WebSocket, refusals too; over budget it throws, answered 429.
      const charge = !admission.ok ? admission.charge : getMutation ? admission.refusal : admission.charge;
      req.context.limits = await engine.rateLimit?.take(
        req.context.requester,
        principal,
        charge.cls,
        charge.units,
      );
      if (!admission.ok) return once({ errors: admission.errors });
      if (getMutation) return failure('method_not_allowed', 'Mutations must be sent with POST.');
      const { prepared, operation } = admission;
      if (operation.operation === OperationTypeNode.SUBSCRIPTION) {
        const subscription = groups.join(
          {
            schema: engine.schema,
            query: params.query,
            document: prepared.document,
            operationName: params.operationName,
            variables: params.variables,
            principal,
            context: () => engine.context(principal),
          },
          { maxQueue: engine.limits.maxSubscriberQueue, onOverflow: () => req.context.end() },
        );
        req.context.subscription = subscription;
        // Refused at the start for want of credentials or a scope: answered 401 or 403 with the Bearer
        // challenge before a stream opens, as any request is (graphql-sse's client reports it so).
        const denied = deniedBy(await subscription.refusal);
        if (denied) throw denied;
        return subscription;
      }
      // Queries and mutations run as over plain HTTP, compiled when they can be; one result, then complete.
      return engine.execute({
        prepared,
        operation,
        operationName: params.operationName,
        variables: params.variables,
        context: engine.context(principal, { request }),
      });
    },
    // One result at a time between graphql-sse (whose own queue has no bound) and the client: the next
    // waits here until this one is read, so a slow reader's backlog stays in its subscription's bounded
    // queue, and overflowing that ends the stream.
    async onNext(ctx, _req, result) {
      while (ctx.unread && !ctx.ended) await new Promise<void>((resolve) => (ctx.wake = resolve));
      ctx.unread = true;
      return engine.mask(result as ExecutionResult);
    },
  });

  return {
    accepts: (request) => (request.headers.get('accept') ?? '').toLowerCase().includes('text/event-stream'),
    subscriptions: () => groups.counts(),
    async handle(requester, principal) {
      const { request } = requester;
      const body = request.method === 'POST' ? await readText(request, engine.limits.maxBodyBytes) : null;
      let stream: AsyncGenerator<string, void, undefined> | undefined;
      const context: StreamContext = {
        principal,
        request,
        requester,
        unread: false,
        ended: false,
        end: () => void stream?.return(),
      };
      const sseRequest: SseRequest<Request, StreamContext> = {
        method: request.method,
        url: request.url,
        headers: {
          // graphql-sse recognises the stream by this exact value.
          get: (name) => (name.toLowerCase() === 'accept' ? 'text/event-stream' : request.headers.get(name)),
        },
        body,
        raw: request,
        context,
      };
      const [answer, answered] = await handler(sseRequest);
      // The stream (or the error it answers with) carries the fields of the budget it was charged to.
      const init = context.limits
        ? { ...answered, headers: { ...answered.headers, ...context.limits } }
        : answered;
      if (answer === null || typeof answer === 'string') return new Response(answer, init);
      stream = answer;
      // Credentials no longer accepted: a last result says so, then the stream completes.
      const revoked = (): void => {
        const last = {
          errors: engine.format([new GraphQLError(REVOKED, { extensions: { code: 'unauthorized' } })]),
        };
        if (context.subscription) context.subscription.end(last as unknown as ExecutionResult);
        else context.end();
      };
      const credential = request.headers.get('authorization');
      const watched = { request: () => new Request(request.url, { headers: request.headers }), revoked };
      credentials.watch(credential, watched);
      const unwatch = () => credentials.unwatch(credential, watched);
      const events = answer;
      const release = (): void => {
        context.unread = false;
        context.wake?.();
        context.wake = undefined;
      };
      const finished = (): void => {
        context.ended = true;
        release();
        unwatch();
      };
      const readable = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            const step = await events.next();
            if (step.done) {
              finished();
              controller.close();
              return;
            }
            // Keep-alive comments pass too; a result read lets the next one through.
            if (step.value.startsWith('event:')) release();
            controller.enqueue(encoder.encode(step.value));
          },
          async cancel() {
            finished();
            await events.return();
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(readable, init);
    },
  };
}
