/** The runner's command line. */
import { parseArgs } from 'node:util';
import { MODES, type Mode } from './client.js';

export interface BenchOptions {
  readonly modes: readonly Mode[];
  /** Subscriber counts for every mode; each mode's own defaults when absent. */
  readonly sizes: readonly number[] | undefined;
  /** Messages timed per size (after one uncounted warm-up message). */
  readonly messages: number;
  /** Also measure the floor (floor.ts) after Switchboard, for every WebSocket (mode, N). */
  readonly floor: boolean;
  /** With the floor: Switchboard and the floor this many times per (mode, N), in alternating order. */
  readonly rounds: number;
  readonly json: string | undefined;
  /** Where Switchboard's server writes a V8 CPU profile of each (mode, N) (`node --cpu-prof`). */
  readonly cpuProf: string | undefined;
}

/** The default plan: subscribers per mode. */
export const DEFAULT_SIZES: Readonly<Record<Mode, readonly number[]>> = {
  socket: [1_000, 10_000],
  shared: [1_000, 10_000, 50_000],
  sse: [1_000],
};

export const USAGE = `usage: npm run bench:subscriptions -- [options]
  --modes <list>      comma-separated: socket (1 subscription per WebSocket), shared (20 per WebSocket),
                      sse (1 event stream each); default socket,shared
  --sse               also sse (same as adding it to --modes)
  --sizes <list>      subscribers, comma-separated, for every mode (default: socket ${DEFAULT_SIZES.socket.join(',')};
                      shared ${DEFAULT_SIZES.shared.join(',')}; sse ${DEFAULT_SIZES.sse.join(',')})
  --messages <n>      messages timed per size (default 20)
  --floor             also measure each socket and shared size on the floor (floor.ts: a bare ws
                      server, no GraphQL, its own fresh process), printed under Switchboard's line
                      with Switchboard's p50 and p99 as multiples of the floor's
  --rounds <n>        with --floor: measure Switchboard and the floor n times per size, in alternating
                      order (A B, B A, …), and print the median and spread of the p50 and p99 ratios
                      (default 1)
  --json <path>       write the results as JSON there
  --cpu-prof <dir>    start Switchboard's server with node --cpu-prof, its profile of each size
                      written to <dir> when the server stops (open it in Chrome DevTools)`;

/** A command line that cannot run; its message (empty for --help) is shown above the usage. */
export class UsageError extends Error {}

export function parseOptions(argv: readonly string[]): BenchOptions {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) throw new UsageError('');
  const modes = list(values.modes);
  const unknown = modes.filter((mode) => !(MODES as readonly string[]).includes(mode));
  if (unknown.length) throw new UsageError(`--modes does not know ${unknown.join(', ')}.`);
  if (values.sse && !modes.includes('sse')) modes.push('sse');
  return {
    modes: modes as Mode[],
    sizes: values.sizes === undefined ? undefined : list(values.sizes).map((s) => count('--sizes', s)),
    messages: count('--messages', values.messages),
    floor: values.floor,
    rounds: count('--rounds', values.rounds),
    json: values.json,
    cpuProf: values['cpu-prof'],
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      modes: { type: 'string', default: 'socket,shared' },
      sse: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      messages: { type: 'string', default: '20' },
      floor: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '1' },
      json: { type: 'string' },
      'cpu-prof': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A whole number above 0; `10_000` is read as 10000. */
function count(flag: string, value: string): number {
  const number = Number(value.replaceAll('_', ''));
  if (!Number.isInteger(number) || number < 1)
    throw new UsageError(`${flag} takes whole numbers above 0 (got "${value}").`);
  return number;
}
