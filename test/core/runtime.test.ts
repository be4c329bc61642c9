import { describe, expect, it } from 'vitest';
import { createRuntime, jsonLogger, systemClock } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';

describe('createRuntime', () => {
  it('keeps what the host gives and fills in a default for everything else but the storage', () => {
    const storage = createMemoryStorage();
    const clock = { now: () => 42 };
    const logger = jsonLogger(() => {});
    const runtime = createRuntime({ storage, clock, logger });
    expect(runtime.storage).toBe(storage);
    expect(runtime.clock).toBe(clock);
    expect(runtime.logger).toBe(logger);
    expect(runtime.ids('cli')).toMatch(/^cli_[0-9a-f]{32}$/);
    expect(runtime.telemetry.tracer).toBeDefined();
    // The platform's outbound HTTP, looked up when a request is sent.
    expect(runtime.fetch).toBeUndefined();
    expect(createRuntime({ storage }).clock).toBe(systemClock);
  });
});
