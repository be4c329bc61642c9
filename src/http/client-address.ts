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

/**
 * Where the request came from: with `trustedProxies` > 0, the address that many hops back in
 * `X-Forwarded-For` (each trusted proxy appends the address it saw); otherwise the peer address the
 * runtime recorded, or `unknown`.
 */
export function clientAddressOf(request: Request, trustedProxies = 0): string {
  if (trustedProxies > 0) {
    const hops = (request.headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    const address = hops[hops.length - trustedProxies];
    if (address) return address;
  }
  return addresses.get(request) ?? 'unknown';
}
