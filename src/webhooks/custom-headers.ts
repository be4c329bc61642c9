/**
 * An endpoint's own request headers (a receiver's tenant id, an API gateway's key): which names it may
 * set, which values are secret, and how a secret value is shown (masked, never echoed).
 */

/** The bounds of an endpoint's `headers`: how many, and how long a name, a value and all of them are. */
export const CUSTOM_HEADER_BOUNDS = {
  count: 20,
  nameChars: 100,
  valueChars: 1000,
  totalChars: 4096,
} as const;

/**
 * What admin answers and the delivery log show instead of a secret header's value. It is not a valid
 * header value (not ASCII), so it can never be a real one: sent back in a change, it keeps the value.
 */
export const MASKED_HEADER_VALUE = '••••••••';

/** RFC 9110 §5.6.2 token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, spaces and tabs inside: RFC 9110 §5.5 field-value without obsolete text. */
const VALUE = /^[\x21-\x7E]([\x20-\x7E\t]*[\x21-\x7E])?$/;

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1), the ones the HTTP client sets, and the ones the sender sets on
 * every delivery (its signature, ids, trace and identity), which a custom header must not replace.
 */
const RESERVED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'expect',
  'user-agent',
  'traceparent',
  'tracestate',
  'x-signature',
  'x-timestamp',
  'x-event-id',
]);

/** Names whose values are credentials: shown masked wherever an endpoint or an attempt is shown. */
const SECRET_NAME = /auth|cookie|token|secret|key|password|passwd|credential|session/i;

/** Whether a header's value is a credential, by its name (`authorization`, `x-api-key`, `cookie`…). */
export function isSecretHeader(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Why a custom header's name cannot be used; null when it can. */
export function headerNameProblem(name: string): string | null {
  if (!TOKEN.test(name)) return "is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)";
  if (name.length > CUSTOM_HEADER_BOUNDS.nameChars)
    return `is longer than ${CUSTOM_HEADER_BOUNDS.nameChars} characters`;
  const lower = name.toLowerCase();
  if (RESERVED.has(lower) || lower.startsWith('webhook-'))
    return 'is set by the sender or the HTTP connection itself';
  return null;
}

/** Why a custom header's value cannot be sent; null when it can. */
export function headerValueProblem(value: string): string | null {
  if (value.length > CUSTOM_HEADER_BOUNDS.valueChars)
    return `is longer than ${CUSTOM_HEADER_BOUNDS.valueChars} characters`;
  if (!VALUE.test(value))
    return 'must be visible ASCII characters (spaces inside), without line breaks or surrounding spaces';
  return null;
}

/** The headers with secret values masked; the same object when none is secret. */
export function maskedHeaders<T extends Readonly<Record<string, string>>>(headers: T): T {
  let masked: Record<string, string> | undefined;
  for (const name of Object.keys(headers)) {
    if (!isSecretHeader(name)) continue;
    masked ??= { ...headers };
    masked[name] = MASKED_HEADER_VALUE;
  }
  return (masked as T | undefined) ?? headers;
}
