import {
  type Attributes,
  type Context,
  context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';

/** Options of {@link inSpan}: its kind, attributes, links, and the parent when not the active context. */
export interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  readonly links?: Link[];
  readonly parent?: Context;
}

/**
 * Runs `work` in a new active span and ends it: a thrown error is recorded on it (status ERROR) and
 * thrown on. With no SDK registered the span records nothing.
 */
export function inSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, options, parent);
  // Nothing records (no SDK, or sampled out): no context to switch, nothing to end.
  if (!span.isRecording()) return work(span);
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await work(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks a span failed with what went wrong (type and message; never a stack to a caller). */
export function failed(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The W3C `traceparent` of the active span (`00-<trace id>-<span id>-<flags>`), or undefined when no
 * span records: what an event keeps so its webhooks join the trace of the request that caused it.
 */
export function currentTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? formatTraceparent(span) : undefined;
}

/** The span context a `traceparent` names, as a parent context; the root context when it is malformed. */
export function contextOfTraceparent(traceparent: string | null | undefined): Context {
  const match = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!match) return ROOT_CONTEXT;
  const spanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return trace.isSpanContextValid(spanContext)
    ? trace.setSpanContext(ROOT_CONTEXT, spanContext)
    : ROOT_CONTEXT;
}

/** The `traceparent` of a span that records, else `fallback` (pass a trace on even without an SDK here). */
export function traceparentOf(span: Span, fallback: string | null | undefined): string | undefined {
  return span.isRecording() ? formatTraceparent(span) : (fallback ?? undefined);
}

function formatTraceparent(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}
