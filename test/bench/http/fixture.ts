/**
 * What every benchmark server shares: the API key callers send, the seeded data, and the way a server
 * tells the runner it is listening (and leaves when the runner goes).
 */
import type { Domain } from '../../../src/index.js';

/** A fixed admin key (made once with `randomSecret('sbk_')`), so the runner and every server know it. */
export const BENCH_KEY = 'sbk_lerr4cjvixw566vmg4i3yfvojh6fni3wpl4gawqa5kztmluhp2dq';

const CITIES = ['Paris', 'London', 'Berlin'];

const unlimited = { limit: 1e12, windowMs: 60_000 };

/**
 * The benchmark servers' `rateLimits`: on, as by default, but too large for any class to refuse a
 * benchmark's load, so what taking from them costs is measured. BENCH_RATE_LIMITS=0 turns them off.
 */
export const benchRateLimits =
  process.env.BENCH_RATE_LIMITS === '0'
    ? (false as const)
    : {
        rules: Object.fromEntries(
          (['read', 'write', 'graphql', 'token', 'subscribe', 'sign-in', 'message'] as const).map((c) => [
            c,
            unlimited,
          ]),
        ),
      };

/** 20 clients with every field set, 3 orders each. Run on every domain, so the data match. */
export async function seedBenchData(domain: Domain): Promise<void> {
  for (let i = 1; i <= 20; i++) {
    const client = await domain.clients
      .create({
        name: `Client ${i}`,
        email: `client${i}@example.com`,
        phone: `+33 6 12 34 56 ${String(i).padStart(2, '0')}`,
        city: CITIES[i % CITIES.length],
      })
      .catch((error: unknown) => {
        // Another server on the same database seeded it already.
        if ((error as { details?: { code?: string }[] }).details?.[0]?.code === 'already_exists') return null;
        throw error;
      });
    if (!client) return;
    for (let j = 1; j <= 3; j++) {
      await domain.orders.create({ clientId: client.id, total: `${j}9.90`, currency: 'EUR' });
    }
  }
}

/**
 * Prints the line the runner waits for. The runner holds our stdin open: when it closes (the runner
 * stopped us or died), we take the same SIGTERM path a process manager would use.
 */
export function announce(port: number): void {
  process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'));
  process.stdin.resume();
  process.stdout.write(`READY ${port}\n`);
}
