/**
 * One group of servers compared on a set of scenarios: start them, check every answer, then per
 * scenario a warm-up round per server (not counted) and interleaved rounds (A B C, C B A, …), so a
 * slow drift of the machine falls on every server alike.
 */
import type { Client } from '../../../src/index.js';
import { BENCH_KEY } from './fixture.js';
import { type LoadSettings, type Round, runRound } from './load.js';
import { type RunningServer, type ServerSpec, startServer } from './processes.js';
import { type Answer, checkOnce, type Scenario, type ScenarioId } from './scenarios.js';

export interface GroupPlan {
  readonly id: string;
  readonly title: string;
  /** The first is the reference: it must serve the REST API, its clients and answers seed the others. */
  readonly servers: readonly [ServerSpec, ...ServerSpec[]];
  readonly scenarios: readonly Scenario[];
  /**
   * When set, each scenario runs interleaved beside this one on the reference server (the only one
   * started), instead of across servers: the ratio is the scenario's rate over this one's.
   */
  readonly against?: Scenario;
}

export interface MeasureSettings extends LoadSettings {
  readonly rounds: number;
  /** Seconds of the uncounted warm-up round. */
  readonly warmUp: number;
}

export interface ServerResult {
  /** The server's name, or with `against` the scenario's id. */
  readonly name: string;
  readonly warmUp: Round;
  /** Counted rounds, in the order they ran. */
  readonly rounds: readonly Round[];
}

export interface ScenarioResult {
  readonly id: ScenarioId;
  readonly label: string;
  /** The reference first. */
  readonly servers: readonly ServerResult[];
}

export interface GroupResult {
  readonly id: string;
  readonly title: string;
  readonly scenarios: readonly ScenarioResult[];
}

interface Server {
  readonly server: RunningServer;
  /** A client this server has: its own when it lists them, the reference's when seeded from it. */
  readonly clientId: string;
}

/** What one column of a scenario's rounds sends, and to which server. */
interface Target extends Server {
  readonly name: string;
  readonly scenario: Scenario;
}

export async function runGroup(
  plan: GroupPlan,
  settings: MeasureSettings,
  log: (line: string) => void,
): Promise<GroupResult> {
  const started: RunningServer[] = [];
  try {
    const [referenceSpec, ...peerSpecs] = plan.servers;
    const reference = await startServer(referenceSpec);
    started.push(reference);
    const clients = await clientsOf(reference);
    const targets: Server[] = [{ server: reference, clientId: clients[10]!.id }];
    const answers: Record<string, Answer> = {};
    for (const scenario of plan.against ? [...plan.scenarios, plan.against] : plan.scenarios) {
      const path = scenario.path(targets[0]!.clientId);
      answers[`${scenario.method} ${path}`] = replayable(
        await checkOnce(reference, scenario, targets[0]!.clientId),
      );
    }
    const seed = { BENCH_CLIENTS: JSON.stringify(clients), BENCH_ANSWERS: JSON.stringify(answers) };
    for (const spec of peerSpecs) {
      const server = await startServer({ ...spec, env: { ...spec.env, ...seed } });
      started.push(server);
      const clientId = spec.listsClients ? (await clientsOf(server))[10]!.id : targets[0]!.clientId;
      for (const scenario of plan.scenarios) await checkOnce(server, scenario, clientId);
      targets.push({ server, clientId });
    }
    log(`${plan.title}: ${targets.map((t) => t.server.spec.name).join(', ')} answer correctly`);

    const results: ScenarioResult[] = [];
    for (const scenario of plan.scenarios) {
      const { against } = plan;
      const columns: Target[] = against
        ? [
            { ...targets[0]!, name: scenario.id, scenario },
            { ...targets[0]!, name: against.id, scenario: against },
          ]
        : targets.map((target) => ({ ...target, name: target.server.spec.name, scenario }));
      const label = against ? `${scenario.label} vs ${against.label}` : scenario.label;
      results.push(await measure(scenario.id, label, columns, settings, log));
    }
    return { id: plan.id, title: plan.title, scenarios: results };
  } finally {
    await Promise.all(started.map((server) => server.stop()));
  }
}

async function measure(
  id: ScenarioId,
  label: string,
  targets: readonly Target[],
  settings: MeasureSettings,
  log: (line: string) => void,
): Promise<ScenarioResult> {
  const warmUps: Round[] = [];
  for (const { server, clientId, scenario } of targets) {
    warmUps.push(await runRound(server, scenario, clientId, { ...settings, duration: settings.warmUp }));
  }
  const rounds: Round[][] = targets.map(() => []);
  for (let r = 0; r < settings.rounds; r++) {
    const order = targets.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) {
      const { server, clientId, scenario, name } = targets[i]!;
      const round = await runRound(server, scenario, clientId, settings);
      rounds[i]!.push(round);
      log(
        `  ${label}  round ${r + 1}/${settings.rounds}  ${name} ${Math.round(round.rps).toLocaleString('en-US')} req/s`,
      );
    }
  }
  return {
    id,
    label,
    servers: targets.map(({ name }, i) => ({
      name,
      warmUp: warmUps[i]!,
      rounds: rounds[i]!,
    })),
  };
}

/** The seeded clients, read over the server's own REST API. */
async function clientsOf(server: RunningServer): Promise<Client[]> {
  const response = await fetch(`${server.url}/api/v1/clients?limit=20`, {
    headers: { authorization: `Bearer ${BENCH_KEY}` },
  });
  const page = (await response.json()) as { items?: Client[] };
  if (response.status !== 200 || page.items?.length !== 20)
    throw new Error(`${server.spec.name} does not list its 20 seeded clients (status ${response.status})`);
  return page.items;
}

// Framing and per-connection headers are the raw server's own business (it sends a Content-Length).
const NOT_REPLAYED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function replayable(answer: Answer): Answer {
  const headers = Object.fromEntries(
    Object.entries(answer.headers).filter(([name]) => !NOT_REPLAYED.has(name)),
  );
  return { status: answer.status, headers, body: answer.body };
}
