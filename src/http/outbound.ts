import { isPublicAddress, parseIp } from './public-address.js';

/**
 * Resolves a host name to its IP addresses. Not a Web API: on Node pass `resolveHost` from
 * `switchboard-kit/node`; on Deno, `(host) => Deno.resolveDns(host, 'A')` (plus `AAAA`).
 */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

/**
 * Where outbound requests (webhooks, OAuth client metadata documents) may go. The defaults are the
 * safe ones; tests and local development loosen them.
 */
export interface OutboundPolicy {
  /** Allow `http:` URLs (development only). Default false: `https:` only. */
  readonly allowHttp?: boolean;
  /** Allow loopback, private, link-local and metadata addresses (development and tests). Default false. */
  readonly allowPrivateAddresses?: boolean;
  /**
   * Checks the resolved address at send time, so a name that later points inside the network is
   * refused. Without it, only URLs with a literal public IP address can be sent to (fail closed).
   */
  readonly resolveHost?: ResolveHost;
}

/** Why a URL cannot be registered, or null when it can. Checked again, on the resolved address, at send time. */
export function checkReceiverUrl(text: string, policy: OutboundPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    return policy.allowHttp ? 'must use https or http' : 'must use https';
  }
  if (url.username || url.password) return 'must not contain credentials';
  if (text.includes('#')) return 'must not contain a fragment';
  if (policy.allowPrivateAddresses) return null;
  const host = canonicalHost(url);
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point to this machine';
  if (parseIp(host) && !isPublicAddress(host)) return 'must not point to a private or reserved address';
  return null;
}

/**
 * The host name as DNS sees it: the URL parser has already lower-cased it and turned an IDN into its
 * ASCII (punycode) form; a trailing dot (the root, `localhost.`) names the same host and goes too.
 */
function canonicalHost(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.+$/, '');
}

/** Why a send is refused: `permanent` for a URL or address that is not allowed, not for a failed lookup. */
export interface RefusedDestination {
  readonly reason: string;
  readonly permanent: boolean;
}

/**
 * Where a send may go: refused, or allowed — with the address that was checked when the host name was
 * resolved, so that the connection goes to that address and not to a second, unchecked DNS answer.
 */
export interface DestinationCheck {
  readonly refused: RefusedDestination | null;
  /** Set when a host name was resolved and allowed. */
  readonly address?: string;
}

/** Checks a URL where it resolves right now. */
export async function checkDestination(text: string, policy: OutboundPolicy): Promise<DestinationCheck> {
  const shape = checkReceiverUrl(text, policy);
  if (shape) return refuse(`The URL ${shape}.`, true);
  const host = new URL(text).hostname;
  if (parseIp(host)) return { refused: null };
  if (!policy.resolveHost) {
    if (policy.allowPrivateAddresses) return { refused: null };
    return refuse('Cannot check where the host points: no resolveHost is configured.', true);
  }
  let addresses: readonly string[];
  try {
    addresses = await policy.resolveHost(host);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return refuse(`Could not resolve ${host}: ${why}`.slice(0, 300), false);
  }
  if (addresses.length === 0) return refuse(`Could not resolve ${host}.`, false);
  const blocked = policy.allowPrivateAddresses ? undefined : addresses.find((a) => !isPublicAddress(a));
  if (blocked)
    return refuse(`Refused: ${host} resolves to a private or reserved address (${blocked}).`, true);
  return { refused: null, address: addresses[0]! };
}

function refuse(reason: string, permanent: boolean): DestinationCheck {
  return { refused: { reason, permanent } };
}
