/** One timed round: autocannon, in the runner's process, against one server over loopback. */
import { randomUUID } from 'node:crypto';
import autocannon, { type RequestSpec } from 'autocannon';
import type { RunningServer } from './processes.js';
import type { Scenario } from './scenarios.js';

export interface LoadSettings {
  /** Seconds per round. */
  readonly duration: number;
  readonly connections: number;
  /** Requests per second the load holds to (autocannon's `overallRate`); as fast as served when absent. */
  readonly rate?: number | undefined;
}

export interface Round {
  /** Completed requests per second over the whole round. */
  readonly rps: number;
  /** Answers received in the round, every status. */
  readonly answers: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** Answers that were not 2xx, by status. */
  readonly unexpected: Readonly<Record<string, number>>;
  /** Connection errors, including timeouts. */
  readonly errors: number;
  readonly timeouts: number;
  /** The server's CPU time (user + system) per answer in the round, in µs, where the platform tells. */
  readonly cpuPerAnswerUs: number | undefined;
}

export async function runRound(
  server: RunningServer,
  scenario: Scenario,
  clientId: string,
  settings: LoadSettings,
): Promise<Round> {
  const cpuBefore = server.cpuMicros();
  const result = await autocannon({
    url: `${server.url}${scenario.path(clientId)}`,
    method: scenario.method,
    headers: scenario.headers,
    ...(scenario.body ? { requests: [bodyOf(scenario.body(clientId))] } : {}),
    connections: settings.connections,
    pipelining: 1,
    duration: settings.duration,
    ...(settings.rate ? { overallRate: settings.rate } : {}),
  });
  const cpuAfter = server.cpuMicros();
  const unexpected: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
    if (!status.startsWith('2')) unexpected[status] = count;
  }
  return {
    rps: result.requests.total / result.duration,
    answers: result.requests.total,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    unexpected,
    errors: result.errors,
    timeouts: result.timeouts,
    cpuPerAnswerUs:
      cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0
        ? undefined
        : (cpuAfter - cpuBefore) / result.requests.total,
  };
}

const run = randomUUID().slice(0, 8);
let sent = 0;

/**
 * The body, with each `[<id>]` made unique per request. Not autocannon's `idReplacement`: it sizes
 * Content-Length for 27-character ids while its url-safe ids are shorter, so servers wait for bytes
 * that never come.
 */
function bodyOf(template: string): RequestSpec {
  if (!template.includes('[<id>]')) return { body: template };
  return {
    setupRequest: (request) => ({ ...request, body: template.replaceAll('[<id>]', `${run}-${++sent}`) }),
  };
}
