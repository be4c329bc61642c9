import { constantTimeEqual } from '@oslojs/crypto/subtle';

const encoder = new TextEncoder();

/** Constant-time comparison of two strings (lengths may leak; contents do not). */
export function textEquals(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  return x.length === y.length && constantTimeEqual(x, y);
}
