/**
 * What a run found: per server the median rate and its spread over the counted rounds, and the
 * reference's rate over each peer's, as the median (and spread) of per-round ratios — rounds run side
 * by side, so each ratio compares servers under the same machine conditions.
 */
import type { Round } from './load.js';
import type { GroupResult, ScenarioResult, ServerResult } from './measure.js';

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface ServerSummary {
  readonly name: string;
  /** Requests per second over the counted rounds. */
  readonly rps: Spread;
  readonly rounds: readonly number[];
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** Non-2xx answers by status, errors and timeouts, warm-up included. */
  readonly unexpected: Readonly<Record<string, number>>;
  readonly errors: number;
  readonly timeouts: number;
  /** Answers in the counted rounds, and how many of them were not 2xx. */
  readonly answers: number;
  readonly non2xx: number;
  /** More than {@link VOID_SHARE} of the counted answers were not 2xx: a 429 is not a served request. */
  readonly voided: boolean;
  /** The server's CPU time per answer over the counted rounds, in µs, where the platform tells. */
  readonly cpuUs: Spread | undefined;
}

/** The share of non-2xx answers above which a server's rounds do not count. */
export const VOID_SHARE = 0.005;

export interface RatioSummary extends Spread {
  /** The peer the reference is divided by. */
  readonly vs: string;
  readonly rounds: readonly number[];
}

export interface ScenarioSummary {
  readonly id: string;
  readonly label: string;
  readonly servers: readonly ServerSummary[];
  readonly ratios: readonly RatioSummary[];
  /** The reference's CPU per answer over each peer's, per round (lower is less work). */
  readonly cpuRatios: readonly RatioSummary[];
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

export function summarize(result: ScenarioResult): ScenarioSummary {
  const [reference, ...peers] = result.servers;
  const servers = result.servers.map(serverSummary);
  const ratios = peers.map((peer) => {
    const rounds = reference!.rounds.map((round, i) => round.rps / peer.rounds[i]!.rps);
    return { vs: peer.name, rounds, ...spread(rounds) };
  });
  const cpuOf = (round: Round): number => round.cpuPerAnswerUs ?? Number.NaN;
  const cpuRatios = servers.every((server) => server.cpuUs)
    ? peers.map((peer) => {
        const rounds = reference!.rounds.map((round, i) => cpuOf(round) / cpuOf(peer.rounds[i]!));
        return { vs: peer.name, rounds, ...spread(rounds) };
      })
    : [];
  return { id: result.id, label: result.label, servers, ratios, cpuRatios };
}

/** One line per scenario (and one per server that answered anything but 2xx or lost connections). */
export function formatGroup(group: GroupResult): string[] {
  const lines = [group.title];
  const width = Math.max(...group.scenarios.map((s) => s.label.length)) + 3;
  for (const summary of group.scenarios.map(summarize)) {
    const [reference, ...peers] = summary.servers;
    const cells = [
      `${reference!.name} ${rate(reference!.rps.median)} req/s ${range(reference!.rps, rate)}`,
      ...peers.map((peer) => `${peer.name} ${rate(peer.rps.median)} ${range(peer.rps, rate)}`),
      ...summary.ratios.map((ratio) => {
        const voided = reference!.voided || summary.servers.find((s) => s.name === ratio.vs)?.voided;
        return voided
          ? `vs ${ratio.vs} VOID`
          : `vs ${ratio.vs} ${factor(ratio.median)}× ${range(ratio, factor)}`;
      }),
    ];
    lines.push(`${summary.label.padEnd(width)}${cells.join(' | ')}`);
    if (summary.cpuRatios.length > 0) {
      const cpu = summary.servers.map(
        (s) => `${s.name} ${micros(s.cpuUs!.median)} µs ${range(s.cpuUs!, micros)}`,
      );
      const ratios = summary.cpuRatios.map((r) => `/ ${r.vs} ${factor(r.median)}× ${range(r, factor)}`);
      lines.push(`${''.padEnd(width)}CPU per answer: ${[...cpu, ...ratios].join(' | ')}`);
    }
    const answers = summary.servers.map((s) => `${s.name} ${rate(s.answers)}`).join(', ');
    lines.push(
      `${''.padEnd(width)}answers checked: every status of ${answers} (counted rounds); each server's body verified before the load`,
    );
    for (const server of summary.servers) {
      if (server.voided)
        lines.push(
          `${''.padEnd(width)}! VOID ${server.name}: ${server.non2xx} of ${server.answers} answers not 2xx (over ${VOID_SHARE * 100} %): its figures and ratios do not count`,
        );
      const problems = Object.entries(server.unexpected).map(([status, count]) => `${count} × ${status}`);
      if (server.rps.min === 0) problems.push('a round completed no request');
      if (server.errors) problems.push(`${server.errors} connection errors (${server.timeouts} timeouts)`);
      if (problems.length) lines.push(`${''.padEnd(width)}! ${server.name}: ${problems.join(', ')}`);
    }
  }
  return lines;
}

function serverSummary(server: ServerResult): ServerSummary {
  const all: readonly Round[] = [server.warmUp, ...server.rounds];
  const unexpected: Record<string, number> = {};
  for (const round of all) {
    for (const [status, count] of Object.entries(round.unexpected))
      unexpected[status] = (unexpected[status] ?? 0) + count;
  }
  const rounds = server.rounds.map((round) => round.rps);
  const answers = server.rounds.reduce((sum, round) => sum + round.answers, 0);
  const non2xx = server.rounds.reduce(
    (sum, round) => sum + Object.values(round.unexpected).reduce((a, b) => a + b, 0),
    0,
  );
  const cpu = server.rounds.map((round) => round.cpuPerAnswerUs);
  return {
    cpuUs: cpu.every((us) => us !== undefined) ? spread(cpu as number[]) : undefined,
    answers,
    non2xx,
    voided: answers === 0 || non2xx / answers > VOID_SHARE,
    name: server.name,
    rps: spread(rounds),
    rounds,
    latencyP50Ms: spread(server.rounds.map((round) => round.latencyP50Ms)).median,
    latencyP99Ms: spread(server.rounds.map((round) => round.latencyP99Ms)).median,
    unexpected,
    errors: all.reduce((sum, round) => sum + round.errors, 0),
    timeouts: all.reduce((sum, round) => sum + round.timeouts, 0),
  };
}

const rate = (value: number): string => Math.round(value).toLocaleString('en-US');
const factor = (value: number): string => value.toFixed(2);
const micros = (value: number): string => value.toFixed(1);
const range = (s: Spread, format: (value: number) => string): string => `(${format(s.min)}–${format(s.max)})`;
