import { lookup } from 'node:dns/promises';

/**
 * Resolves a host name to every address it has (IPv4 and IPv6), as the webhook dispatcher's
 * `outbound.resolveHost` needs to refuse receivers that point into private networks.
 *
 * @example
 * import { resolveHost } from 'switchboard-kit/node';
 * createSwitchboard({ webhooks: { outbound: { resolveHost } } });
 */
export async function resolveHost(hostname: string): Promise<readonly string[]> {
  const addresses = await lookup(hostname, { all: true, verbatim: true });
  return addresses.map((a) => a.address);
}
