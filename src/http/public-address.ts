/**
 * Which IP addresses an outbound request (a webhook, an OAuth client's metadata document) may go to.
 * Loopback, private, link-local (cloud metadata lives at 169.254.169.254 and fd00:ec2::254), shared,
 * multicast, reserved and documentation ranges are refused: a URL someone else chose must not become
 * a way into the sender's own network (SSRF). The ranges are
 * ipaddr.js's table of special-purpose addresses (IANA's registries); only `unicast` passes.
 */
import ipaddr from 'ipaddr.js';

/** An address written as an IP literal (bracketed IPv6 and a zone allowed); null when `text` is not one. */
export function parseIp(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = (text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text).split('%')[0]!;
  // Four decimal parts only: `127.1` or `0x7f.0.0.1` are not addresses here, as in a URL's host.
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (bare.includes(':') && ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  return null;
}

/**
 * Whether an address belongs to the public internet. IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated,
 * IPv4-compatible (`::a.b.c.d`) and NAT64 (`64:ff9b::a.b.c.d`) addresses are judged by the IPv4
 * address inside them.
 *
 * @example
 * isPublicAddress('93.184.216.34'); // true
 * isPublicAddress('169.254.169.254'); // false
 */
export function isPublicAddress(address: string): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIpv4(v6);
  if (embedded) return embedded.range() === 'unicast';
  return v6.range() === 'unicast';
}

/** The IPv4 address an IPv6 address carries in its last 32 bits, for the forms that route to it. */
function embeddedIpv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = ip.parts;
  const zeros = (n: number) => p.slice(0, n).every((part) => part === 0);
  const nat64 = p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((part) => part === 0);
  const mapped = zeros(5) && (p[5] === 0xffff || p[5] === 0);
  const translated = zeros(4) && p[4] === 0xffff && p[5] === 0;
  if (!nat64 && !mapped && !translated) return null;
  // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
  if (zeros(7) && p[7]! <= 1) return ipaddr.IPv4.parse('0.0.0.0');
  return ipaddr.IPv4.parse(`${p[6]! >> 8}.${p[6]! & 0xff}.${p[7]! >> 8}.${p[7]! & 0xff}`);
}
