import { trace } from '@opentelemetry/api';
import type { Logger } from 'switchboard-kit';

/**
 * The logger with the active span's `traceId` and `spanId` on every line logged inside a span, so a log
 * line leads to its trace. Outside a span (or with no tracer provider registered) lines are unchanged.
 */
export function withTraceIds(logger: Logger): Logger {
  return {
    log(level, message, fields) {
      const span = trace.getActiveSpan()?.spanContext();
      if (!span || !trace.isSpanContextValid(span)) return logger.log(level, message, fields);
      logger.log(level, message, { traceId: span.traceId, spanId: span.spanId, ...fields });
    },
  };
}
