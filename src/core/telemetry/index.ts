export {
  contextOfTraceparent,
  currentTraceparent,
  failed,
  inSpan,
  type SpanOptions,
  traceparentOf,
} from './spans.js';
export { tracedStorage } from './storage.js';
export {
  createTelemetry,
  INSTRUMENTATION_SCOPE,
  type Telemetry,
  type TelemetryOptions,
} from './telemetry.js';
