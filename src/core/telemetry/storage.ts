import { SpanKind } from '@opentelemetry/api';
import type { Storage } from '../storage/index.js';
import { inSpan } from './spans.js';
import type { Telemetry } from './telemetry.js';

/**
 * The storage with a span around each transaction (`switchboard.storage.transaction`), so a request's
 * trace shows the time its writes held the database. Everything else is the storage itself.
 */
export function tracedStorage<S extends Storage>(storage: S, telemetry: Telemetry): S {
  const { tracer } = telemetry;
  const transaction: Storage['transaction'] = (work) =>
    inSpan(tracer, 'switchboard.storage.transaction', { kind: SpanKind.INTERNAL }, () =>
      storage.transaction(work),
    );
  return { ...storage, transaction };
}
