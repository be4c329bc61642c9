/**
 * The network address a request came from, for the budgets of callers without credentials: the peer
 * address the runtime adapter gave the request's context, or a trusted proxy's `X-Forwarded-For` hop.
 */
import type { Requester } from './request-context.js';

const MAX_ADDRESS_LENGTH = 100;

/**
 * Where the request came from: with `trustedProxies` > 0, the address that many hops back in
 * `X-Forwarded-For` (each trusted proxy appends the address it saw) if it has at most 100 characters;
 * otherwise the peer address the runtime gave, or `unknown`.
 */
export function clientAddressOf(context: Requester, trustedProxies = 0): string {
  if (trustedProxies > 0) {
    const hops = (context.request.headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    const address = hops[hops.length - trustedProxies];
    // Longer than any address (IPv6 with a zone has 50 or so): a hop the caller wrote, when more proxies
    // are trusted than append. It would be a budget key no index can hold; the peer's address stands.
    if (address && address.length <= MAX_ADDRESS_LENGTH) return address;
  }
  return context.clientAddress || 'unknown';
}
