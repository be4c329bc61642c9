/**
 * The network address a request came from, which the Web `Request` does not carry: a runtime adapter
 * (switchboard-kit/node …) records it, and rate limits read it for callers without credentials.
 */
const addresses = new WeakMap<Request, string>();

/** Records where a request came from (called by runtime adapters). */
export function setClientAddress(request: Request, address: string | undefined): void {
  if (address) addresses.set(request, address);
}

/** Records on `to` the address recorded for `from`: for a copy of a request (a WebSocket's upgrade). */
export function copyClientAddress(from: Request, to: Request): void {
  setClientAddress(to, addresses.get(from));
}

const MAX_ADDRESS_LENGTH = 100;

/**
 * Where the request came from: with `trustedProxies` > 0, the address that many hops back in
 * `X-Forwarded-For` (each trusted proxy appends the address it saw) if it has at most 100 characters;
 * otherwise the peer address the runtime recorded, or `unknown`.
 */
export function clientAddressOf(request: Request, trustedProxies = 0): string {
  if (trustedProxies > 0) {
    const hops = (request.headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    const address = hops[hops.length - trustedProxies];
    // Longer than any address (IPv6 with a zone has 50 or so): a hop the caller wrote, when more proxies
    // are trusted than append. It would be a budget key no index can hold; the peer's address stands.
    if (address && address.length <= MAX_ADDRESS_LENGTH) return address;
  }
  return addresses.get(request) ?? 'unknown';
}
