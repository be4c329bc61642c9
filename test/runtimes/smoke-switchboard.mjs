// The switchboard every runtime's smoke script serves: the built package with the admin `key`, quick
// relay and webhook polling, loopback receivers allowed; on memory storage, or on PostgreSQL
// (switchboard-kit/storage/postgres, through `pg`) when `databaseUrl` names a database. Plain
// JavaScript, so the lowest Node runs it without a loader.
import { createSwitchboard } from '../../dist/index.js';

/**
 * Made, ready and started. `close` stops the switchboard, then ends the storage's pool, which the
 * switchboard leaves open (the host owns it), so the runtime exits at once.
 *
 * @param {{ key: string, databaseUrl?: string }} options
 */
export async function smokeSwitchboard({ key, databaseUrl }) {
  // Imported only when asked for, so the memory run does not load `pg`.
  const storage = databaseUrl
    ? (await import('../../dist/storage/postgres/index.js')).createPostgresStorage({
        connectionString: databaseUrl,
      })
    : undefined;
  await storage?.migrate();
  const switchboard = createSwitchboard({
    storage,
    oauth: { adminApiKey: key },
    relayIntervalMs: 20,
    webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true }, pollIntervalMs: 20 },
  });
  await switchboard.oauth.ready;
  switchboard.start();
  return {
    switchboard,
    async close() {
      await switchboard.close();
      await storage?.close();
    },
  };
}
