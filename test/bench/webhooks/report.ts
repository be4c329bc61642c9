/**
 * One line per scenario and storage (and a `!` line under it when something was off): medians with
 * their min–max over rounds, and Switchboard's rate over its peer's as the median (and spread) of
 * per-round ratios, as test/bench/http/report.ts does — rounds run side by side, so each ratio compares
 * the two under the same machine conditions.
 */
import { arch, cpus, platform } from 'node:os';
import { type Spread, spread } from '../http/report.js';
import type { BurstResult } from './burst.js';
import type { FanoutResult } from './fanout.js';
import type { SignResult } from './sign.js';
import type { SustainedResult } from './sustained.js';

export function machine(): string {
  const cores = cpus();
  return `${cores[0]?.model.trim() ?? 'unknown CPU'}, ${cores.length} cores, Node ${process.version} (${platform()} ${arch()})`;
}

const LABEL_WIDTH = 54;
const line = (label: string, cells: readonly string[]): string =>
  `${label.padEnd(LABEL_WIDTH - 1)} ${cells.join(' | ')}`;
const warning = (problems: readonly string[]): string[] =>
  problems.length ? [`${''.padEnd(LABEL_WIDTH)}! ${problems.join(', ')}`] : [];

export function burstSummary(result: BurstResult) {
  const ratios = result.switchboard.map((round, i) => round.rate / result.fetchLoop[i]!.rate);
  return {
    switchboard: spread(result.switchboard.map((round) => round.rate)),
    fetchLoop: spread(result.fetchLoop.map((round) => round.rate)),
    ratio: spread(ratios),
    firstMs: spread(result.switchboard.map((round) => round.firstMs ?? 0)),
    queuedAfterMs: spread(result.queuedAfterMs),
    duplicates: result.switchboard.reduce((sum, round) => sum + round.duplicates, 0),
    peerDuplicates: result.fetchLoop.reduce((sum, round) => sum + round.duplicates, 0),
  };
}

export function formatBurst(result: BurstResult): string[] {
  const s = burstSummary(result);
  const label = `burst ${count(result.events)} events → 1 endpoint (${result.storage})`;
  const cells = [
    `switchboard ${rate(s.switchboard.median)}/s ${range(s.switchboard, rate)}`,
    `fetch loop ${rate(s.fetchLoop.median)}/s ${range(s.fetchLoop, rate)}`,
    `ratio ${factor(s.ratio.median)}× ${range(s.ratio, factor)}`,
    `first delivery ${ms(s.firstMs.median)}`,
    `duplicates ${s.duplicates}`,
  ];
  const problems = s.peerDuplicates ? [`fetch loop duplicates ${s.peerDuplicates}`] : [];
  if (s.duplicates) problems.push(`${s.duplicates} duplicate deliveries`);
  return [line(label, cells), ...warning(problems)];
}

export function formatSustained(result: SustainedResult): string[] {
  const instances = result.instances > 1 ? `, ${result.instances} instances` : '';
  const label = `sustained ${Math.round(result.seconds)} s of creates${instances} (${result.storage})`;
  const samples = result.sampleRates.length ? spread(result.sampleRates) : undefined;
  const exact = result.delivered === result.created && result.duplicates === 0;
  const cells = [
    `creates ${rate(result.createRate)}/s`,
    `deliveries ${rate(result.deliveryRate)}/s during the load${samples ? ` (1 s samples ${rate(samples.min)}–${rate(samples.max)})` : ''}`,
    `backlog ${count(result.backlogAtStop)} at stop, empty after ${result.drainSeconds.toFixed(1)} s`,
    `${exact ? 'exactly once' : 'NOT exactly once'}: ${count(result.created)} created, ${count(result.delivered)} delivered, ${result.duplicates} duplicates`,
  ];
  return [line(label, cells), ...warning(result.problems ? [`creates: ${result.problems}`] : [])];
}

export function signSummary(result: SignResult) {
  const { 'switchboard-kit': ours, standardwebhooks, 'node:crypto': node } = result.rounds;
  return {
    switchboard: spread(ours),
    standardwebhooks: spread(standardwebhooks),
    nodeCrypto: spread(node),
    vsStandardwebhooks: spread(ours.map((ops, i) => ops / standardwebhooks[i]!)),
    vsNodeCrypto: spread(ours.map((ops, i) => ops / node[i]!)),
  };
}

export function formatSign(result: SignResult): string[] {
  const s = signSummary(result);
  const cells = [
    `switchboard-kit ${rate(s.switchboard.median)}/s ${range(s.switchboard, rate)}`,
    `standardwebhooks ${rate(s.standardwebhooks.median)}/s ${range(s.standardwebhooks, rate)}`,
    `node:crypto ${rate(s.nodeCrypto.median)}/s ${range(s.nodeCrypto, rate)}`,
    `vs standardwebhooks ${factor(s.vsStandardwebhooks.median)}× ${range(s.vsStandardwebhooks, factor)}`,
    `vs node:crypto ${factor(s.vsNodeCrypto.median)}× ${range(s.vsNodeCrypto, factor)}`,
  ];
  return [line('sign + verify 1 KiB, standard scheme (runner)', cells)];
}

export function formatFanout(result: FanoutResult): string[] {
  const label = `fanout 1 event → ${count(result.endpoints)} endpoints + 1 slow (${result.storage})`;
  const cells = [
    `all delivered ${result.seconds.toFixed(2)} s after the 201 (${rate(result.rate)}/s)`,
    `first ${ms(result.firstMs)}`,
    result.slowMs === undefined ? 'slow one not reached' : `slow one reached at ${ms(result.slowMs)}`,
    `duplicates ${result.duplicates}`,
  ];
  return [
    line(label, cells),
    ...warning(result.duplicates ? [`${result.duplicates} duplicate deliveries`] : []),
  ];
}

const count = (value: number): string => value.toLocaleString('en-US');
const rate = (value: number): string => Math.round(value).toLocaleString('en-US');
const factor = (value: number): string => value.toFixed(2);
const ms = (value: number): string => `${Math.round(value).toLocaleString('en-US')} ms`;
const range = (s: Spread, format: (value: number) => string): string => `(${format(s.min)}–${format(s.max)})`;
