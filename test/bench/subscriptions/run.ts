/**
 * GraphQL subscriptions at scale: how fast a new message reaches N subscribers, and what an idle
 * subscriber costs the server. Run on demand, never by `npm test`:
 *
 *   npm run bench:subscriptions                                   # the default plan below
 *   npm run bench:subscriptions -- --sizes 1000 --messages 5      # quicker
 *   npm run bench:subscriptions -- --modes socket --sizes 10000
 *   npm run bench:subscriptions -- --sse                          # also GraphQL over SSE, N = 1,000
 *   npm run bench:subscriptions -- --floor                        # and the floor beside Switchboard
 *   npm run bench:subscriptions -- --floor --rounds 3             # 3 alternating rounds, median ratios
 *   npm run bench:subscriptions -- --json results.json
 *
 * Default plan: one subscription per WebSocket (`socket`) at N = 1,000 and 10,000; 20 per WebSocket
 * (`shared`) at N = 1,000, 10,000 and 50,000. `sse` (graphql-sse distinct connections, one POST
 * /graphql event stream per subscriber, N = 1,000) only with --sse or --modes: a server that does not
 * serve it is reported "not supported" on its line.
 *
 * Every (mode, N) gets a fresh server process (server.ts, the built package as a user sets it up);
 * the subscribers are opened from this process, 200 connections at a time. Memory: the server's heap
 * and RSS after a forced GC, once before any connection and once when every subscriber has received a
 * warm-up message and has been idle for a second, divided by the live subscribers. Latency: messages
 * are created one at a time (POST /api/v1/chatbots/bot-1/messages); each counts from just before its
 * POST to the `next` frame's arrival at each subscriber, and the next waits until every live
 * subscriber has it (or 30 s). The arrivals are read on one event loop here, so at large N the
 * highest percentiles include this process working through the frames: compare runs, not servers.
 *
 * --floor: after Switchboard's, each `socket` and `shared` (mode, N) is measured again on a fresh
 * process of floor.ts, the same fan-out with no GraphQL (a bare `ws` server that acknowledges, answers
 * the POST and writes one pre-serialised `next` frame per subscriber). Its line, `  floor`, is printed
 * under Switchboard's with Switchboard's p50 and p99 as multiples of the floor's; in --json, as `floor`
 * and `vsFloor` on Switchboard's result. Both are read by this same process, whose share of the
 * latency at large N pulls the ratio towards 1.
 *
 * The npm script raises the soft open-files limit to the hard one first (N sockets on each side).
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { arch, cpus, platform } from 'node:os';
import { stopAll } from '../http/processes.js';
import { SHARED_PER_SOCKET } from './client.js';
import { measure, type Result } from './measure.js';
import { type BenchOptions, DEFAULT_SIZES, parseOptions, USAGE, UsageError } from './options.js';
import { type FloorRatios, formatResult, formatRounds, vsFloor } from './report.js';

/** Switchboard's result; with --floor (WebSocket modes), the floor's beside it. */
type Entry = Result & { readonly floor?: Result; readonly vsFloor?: FloorRatios };

function machine(): string {
  const cores = cpus();
  return `${cores[0]?.model.trim() ?? 'unknown CPU'}, ${cores.length} cores, Node ${process.version} (${platform()} ${arch()})`;
}

/** The soft limit on open files (Linux), inherited by the server: each side holds a descriptor per connection. */
function openFilesLimit(): string {
  try {
    return /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

async function main(options: BenchOptions): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  process.stdout.write(`Switchboard GraphQL subscriptions: ${machine()}\n`);
  process.stdout.write(
    `${options.messages} messages per size, one at a time; shared = ${SHARED_PER_SOCKET} subscriptions ` +
      `per WebSocket; open files limit ${openFilesLimit()}; KB = 1,024 bytes\n\n`,
  );
  const results: Entry[] = [];
  const print = (lines: string[]): void => void process.stdout.write(`${lines.join('\n')}\n`);
  try {
    for (const mode of options.modes) {
      for (const n of options.sizes ?? DEFAULT_SIZES[mode]) {
        if (!options.floor || mode === 'sse') {
          const result = await measure('switchboard', mode, n, options.messages, log, options.cpuProf);
          print(formatResult(result));
          results.push(result);
          continue;
        }
        // Alternating order (A B, B A, …), so a drift of the machine falls on both alike.
        const rounds: FloorRatios[] = [];
        for (let round = 0; round < options.rounds; round++) {
          const measured: Partial<Record<'switchboard' | 'floor', Result>> = {};
          const order = round % 2 ? (['floor', 'switchboard'] as const) : (['switchboard', 'floor'] as const);
          for (const server of order) {
            const profile = server === 'switchboard' ? options.cpuProf : undefined;
            measured[server] = await measure(server, mode, n, options.messages, log, profile);
          }
          const result = measured.switchboard!;
          const floor = measured.floor!;
          const ratios = vsFloor(result, floor);
          print([...formatResult(result), ...formatResult(floor, ratios)]);
          results.push({ ...result, floor, vsFloor: ratios });
          rounds.push(ratios);
        }
        if (rounds.length > 1) print([formatRounds(mode, n, rounds)]);
      }
    }
  } finally {
    await stopAll();
  }
  if (options.json) {
    const json = { machine: machine(), settings: options, results };
    await writeFile(options.json, `${JSON.stringify(json, null, 2)}\n`);
    process.stdout.write(`\nResults written to ${options.json}\n`);
  }
}

// Ctrl+C stops the server instead of leaving it behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stopAll().finally(() => process.exit(130));
  });
}

try {
  await main(parseOptions(process.argv.slice(2)));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`${error.message ? `${error.message}\n` : ''}${USAGE}\n`);
  process.exitCode = error.message ? 64 : 0;
}
