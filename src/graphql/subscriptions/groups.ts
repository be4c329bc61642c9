import {
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  subscribe,
} from 'graphql';
import type { Principal } from '../../core/auth.js';

/** One subscription operation as a subscriber sent it. */
export interface SubscriptionOperation {
  readonly schema: GraphQLSchema;
  /** The query text: with the operation name, variables and visibility, it names the group. */
  readonly query: string;
  readonly document: DocumentNode;
  readonly operationName?: string | undefined;
  readonly variables?: Readonly<Record<string, unknown>> | null | undefined;
  readonly principal: Principal;
  /** Makes the context the group's execution runs with (once per group, not per subscriber). */
  readonly context: () => unknown;
}

export interface Subscriber {
  /**
   * Sends one event's result, already serialised, straight to the transport. Without it results
   * are handed out through the iterator `join` returns, one queue per subscriber.
   */
  readonly send?: (payloadJson: string) => void;
  /** Results held for a subscriber reading through the iterator; one more and it is dropped. */
  readonly maxQueue: number;
  /** Called once when that happens, so the transport can close (WebSocket 1013). */
  readonly onOverflow?: () => void;
  /**
   * With `send`: told how the subscription ends (unless the subscriber ended it), in place of the
   * iterator, so a transport that sends frames itself needs no pending read per subscriber.
   */
  readonly onEnd?: (outcome: { readonly last?: ExecutionResult } | { readonly error: unknown }) => void;
}

/** One subscriber's view of its group: the results for it, and a way to end it from the transport. */
export interface Subscription extends AsyncIterableIterator<ExecutionResult> {
  /**
   * Settles once the execution has started: with the errors it was refused with at the start (scope,
   * variables, a throwing subscribe resolver) as graphql-js raised them, so a transport can answer
   * before it opens a stream, or with undefined.
   */
  readonly refusal: Promise<readonly GraphQLError[] | undefined>;
  /** Leaves the group: the subscriber ended it. */
  return(): Promise<IteratorResult<ExecutionResult>>;
  /** Ends this subscriber's subscription (it leaves its group), after one last result when given. */
  end(last?: ExecutionResult): void;
}

/** Subscriptions grouped by what they see: one execution and one serialisation per event and group. */
export interface SubscriptionGroups {
  /**
   * Adds a subscriber to the group of its operation (starting the group when it is the first). The
   * iterator ends when the subscription does, yields the results not sent through `send` (an
   * operation refused at start, every event without `send`), and leaves the group on `return()`.
   */
  join(operation: SubscriptionOperation, subscriber: Subscriber): Subscription;
  /** How many subscribers there are, and in how many groups (one per distinct operation and visibility). */
  counts(): { subscribers: number; groups: number };
}

export interface SubscriptionGroupsOptions {
  /** Masks errors the way every other answer is masked. */
  readonly format: (errors: readonly GraphQLError[]) => GraphQLFormattedError[];
  /** Called once an event has gone to every subscriber of a group (a transport writes what it held). */
  readonly afterEvent?: () => void;
}

/**
 * What a principal may see decides who may share a result: the same scopes and the same user acting
 * (or none). Built-in resolvers depend on nothing else of the principal, and a subscription's
 * resolvers run with the group's context, so host resolvers must not either.
 */
function visibilityOf(principal: Principal): string {
  return `${principal.kind}\n${principal.userId ?? ''}\n${[...principal.scopes].sort().join(' ')}`;
}

/**
 * Subscribers of the same operation (query, operation name, variables) with the same visibility
 * share one graphql-js subscription: each event is executed once and serialised once, then handed to
 * every subscriber of the group. The group starts with its first subscriber and stops with its last.
 */
export function createSubscriptionGroups(options: SubscriptionGroupsOptions): SubscriptionGroups {
  const groups = new Map<string, Group>();
  let subscribers = 0;

  const formatted = (result: ExecutionResult): ExecutionResult =>
    result.errors?.length
      ? ({ ...result, errors: options.format(result.errors) } as unknown as ExecutionResult)
      : result;

  async function run(group: Group, operation: SubscriptionOperation): Promise<void> {
    try {
      const outcome = await subscribe({
        schema: operation.schema,
        document: operation.document,
        operationName: operation.operationName,
        variableValues: operation.variables,
        contextValue: operation.context(),
      });
      group.settle(Symbol.asyncIterator in outcome ? undefined : outcome.errors);
      if (!(Symbol.asyncIterator in outcome)) {
        // Refused at start (scope, variables, a throwing subscribe resolver): everyone gets the errors.
        const result = formatted(outcome);
        for (const member of group.members) member.finish(result);
        return;
      }
      group.source = outcome;
      if (group.stopped) return void (await outcome.return?.());
      for (;;) {
        const step = await outcome.next();
        if (step.done) break;
        const result = formatted(step.value);
        let json: string | undefined;
        // Nothing here awaits: no subscriber joins or leaves half-way through an event.
        try {
          for (const member of group.members) {
            const { subscriber } = member;
            if (!subscriber.send) member.push(result);
            else {
              json ??= JSON.stringify(result);
              subscriber.send(json);
            }
          }
        } finally {
          options.afterEvent?.();
        }
      }
      for (const member of group.members) member.finish();
    } catch (error) {
      for (const member of group.members) member.fail(error);
    } finally {
      group.settle(undefined);
      group.stopped = true;
      subscribers -= group.members.size;
      group.members.clear();
      if (groups.get(group.key) === group) groups.delete(group.key);
    }
  }

  function leave(group: Group, member: Member): void {
    if (!group.members.delete(member)) return;
    subscribers--;
    if (group.members.size > 0 || group.stopped) return;
    group.stopped = true;
    if (groups.get(group.key) === group) groups.delete(group.key);
    // Ends the bus subscription; the loop in `run` then sees the end of the source.
    void group.source?.return?.();
  }

  return {
    join(operation, subscriber) {
      const key = JSON.stringify([
        operation.query,
        operation.operationName ?? null,
        operation.variables ?? null,
        visibilityOf(operation.principal),
      ]);
      let group = groups.get(key);
      const starting = !group;
      if (!group) {
        let settle!: Group['settle'];
        const refusal = new Promise<readonly GraphQLError[] | undefined>((resolve) => (settle = resolve));
        group = { key, members: new Set(), stopped: false, refusal, settle };
        groups.set(key, group);
      }
      const member = new Member(subscriber, group, leave);
      group.members.add(member);
      subscribers++;
      if (starting) void run(group, operation);
      return member;
    },
    counts: () => ({ subscribers, groups: groups.size }),
  };
}

interface Group {
  readonly key: string;
  readonly members: Set<Member>;
  source?: AsyncIterator<ExecutionResult>;
  stopped: boolean;
  /** See {@link Subscription.refusal}; one for the group, settled by `settle`. */
  readonly refusal: Promise<readonly GraphQLError[] | undefined>;
  readonly settle: (errors: readonly GraphQLError[] | undefined) => void;
}

/**
 * One subscriber in a group, and the iterator its transport reads. A class, not closures: at tens of
 * thousands of subscribers the per-subscriber functions would cost more than its state.
 */
class Member implements Subscription {
  // Results not read yet (only subscribers without `send` read through the iterator, so the others
  // never get one).
  #queue: ExecutionResult[] | undefined;
  #waiting:
    | { resolve(step: IteratorResult<ExecutionResult>): void; reject(error: unknown): void }
    | undefined;
  // An error for the next `next()` when none was waiting as it came.
  #failure: { error: unknown } | undefined;
  #done = false;

  constructor(
    readonly subscriber: Subscriber,
    readonly group: Group,
    readonly leave: (group: Group, member: Member) => void,
  ) {}

  get refusal(): Promise<readonly GraphQLError[] | undefined> {
    return this.group.refusal;
  }

  push(result: ExecutionResult): void {
    if (this.#done) return;
    this.#queue ??= [];
    const queue = this.#queue;
    if (queue.length >= this.subscriber.maxQueue) {
      this.fail(new Error('The subscriber fell too far behind and was dropped.'));
      this.leave(this.group, this);
      this.subscriber.onOverflow?.();
      return;
    }
    queue.push(result);
    this.#settle();
  }

  /** Ends the subscription, after one last result when given. */
  finish(last?: ExecutionResult): void {
    if (this.#done) return;
    this.#done = true;
    if (this.subscriber.onEnd) this.subscriber.onEnd(last ? { last } : {});
    else {
      if (last) {
        this.#queue ??= [];
        this.#queue.push(last);
      }
      this.#settle();
    }
  }

  end(last?: ExecutionResult): void {
    if (this.#done) return;
    this.leave(this.group, this);
    this.finish(last);
  }

  fail(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    if (this.subscriber.onEnd) {
      this.subscriber.onEnd({ error });
      return;
    }
    this.#queue = undefined;
    const waiting = this.#waiting;
    if (!waiting) this.#failure = { error };
    else {
      this.#waiting = undefined;
      waiting.reject(error);
    }
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const value = this.#queue?.shift();
    if (value) return Promise.resolve({ value, done: false });
    const failure = this.#failure;
    if (failure) {
      this.#failure = undefined;
      return Promise.reject(failure.error);
    }
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    if (!this.#done) this.leave(this.group, this);
    this.#done = true;
    this.#queue = undefined;
    this.#failure = undefined;
    this.#settle();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** As an async generator's: ends the subscription, rejecting with the error (graphql-sse checks for it). */
  async throw(error: unknown): Promise<IteratorResult<ExecutionResult>> {
    await this.return();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #settle(): void {
    const waiting = this.#waiting;
    if (!waiting || (!this.#queue?.length && !this.#done)) return;
    this.#waiting = undefined;
    const value = this.#queue?.shift();
    waiting.resolve(value ? { value, done: false } : { value: undefined, done: true });
  }
}
