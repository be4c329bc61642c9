/**
 * Which IP addresses a webhook may be sent to. Loopback, private, link-local (cloud metadata lives at
 * 169.254.169.254 and fd00:ec2::254), shared, multicast, reserved and documentation ranges are
 * refused: a receiver URL must not become a way into the sender's own network (SSRF).
 */

/** The 16 bytes of an IPv6 address or the 4 of an IPv4 address; null when `text` is neither. */
export function parseIp(text: string): Uint8Array | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return parseIpv4(bare) ?? parseIpv6(bare.split('%')[0]!);
}

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return null;
    bytes[i] = Number(part);
  }
  return bytes;
}

function parseIpv6(text: string): Uint8Array | null {
  if (!text.includes(':')) return null;
  let head = text;
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const bytes = parseIpv4(v4[1]!);
    if (!bytes) return null;
    tail = [(bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!];
    head = text.slice(0, -v4[1]!.length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const group = (s: string): number[] | null => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const left = group(halves[0]!);
  const right = halves.length === 2 ? group(halves[1]!) : [];
  if (!left || !right) return null;
  const known = left.length + right.length + tail.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  const words = [...left, ...new Array<number>(8 - known).fill(0), ...right, ...tail];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 0xff;
  });
  return bytes;
}

const V4_BLOCKED: readonly [number[], number][] = [
  [[0, 0, 0, 0], 8], // "this" network
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // carrier-grade NAT
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local, cloud metadata
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 88, 99, 0], 24], // 6to4 relay
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, broadcast
];

const V6_BLOCKED: readonly [number[], number][] = [
  [[0x01, 0x00], 64], // discard-only 100::/64
  [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
  [[0x20, 0x01, 0x00, 0x00], 23], // IETF protocol assignments (Teredo, ORCHID …)
  [[0xfc], 7], // unique local (incl. fd00:ec2::254 metadata)
  [[0xfe, 0x80], 10], // link-local
  [[0xfe, 0xc0], 10], // site-local (deprecated)
  [[0xff], 8], // multicast
];

function inPrefix(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((bytes[byte] ?? 0) & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

/**
 * Whether an address belongs to the public internet. IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
 * and NAT64 (`64:ff9b::a.b.c.d`) addresses are judged by the IPv4 address inside them.
 *
 * @example
 * isPublicAddress('93.184.216.34'); // true
 * isPublicAddress('169.254.169.254'); // false
 */
export function isPublicAddress(address: string): boolean {
  const bytes = parseIp(address);
  if (!bytes) return false;
  if (bytes.length === 4) return !V4_BLOCKED.some(([prefix, bits]) => inPrefix(bytes, prefix, bits));
  const zeros80 = bytes.subarray(0, 10).every((b) => b === 0);
  if (zeros80 && ((bytes[10] === 0xff && bytes[11] === 0xff) || (bytes[10] === 0 && bytes[11] === 0))) {
    const v4 = bytes.subarray(12);
    if (bytes[10] === 0 && v4.every((b) => b === 0)) return false; // :: and ::/96
    if (bytes[10] === 0 && v4[0] === 0 && v4[1] === 0 && v4[2] === 0 && v4[3] === 1) return false; // ::1
    return isPublicAddress(v4.join('.'));
  }
  if (inPrefix(bytes, [0, 0x64, 0xff, 0x9b], 96)) return isPublicAddress(bytes.subarray(12).join('.'));
  return !V6_BLOCKED.some(([prefix, bits]) => inPrefix(bytes, prefix, bits));
}
