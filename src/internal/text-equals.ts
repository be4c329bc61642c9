/**
 * Constant-time comparison of two strings (lengths may leak; contents do not): every code unit is
 * compared, with nothing copied or encoded per call.
 */
export function textEquals(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
