import { SwitchboardError } from '../core/errors.js';
import { isStorableText } from '../core/storable-text.js';
import { readText } from '../http/body.js';
import { oauthError } from './oauth-error.js';

/** Reads an `application/x-www-form-urlencoded` body within the size limit (RFC 6749 §3.2). */
export async function readForm(request: Request, maxBytes: number): Promise<URLSearchParams> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new SwitchboardError(
      'unsupported_media_type',
      'Send the parameters as application/x-www-form-urlencoded.',
      {
        details: [{ field: 'error', code: 'invalid_request', message: 'Wrong content type.' }],
      },
    );
  }
  return new URLSearchParams(await readText(request, maxBytes));
}

/**
 * One parameter, refusing duplicates: RFC 6749 §3.1 and §3.2 say parameters must not repeat, and a
 * repeated one is a classic way to confuse two parsers. A value holding NUL (`%00`) is malformed too
 * (§5.2 `invalid_request`): no parameter of the protocol has one, and it cannot be stored.
 */
export function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw oauthError('invalid_request', `The parameter ${name} is repeated.`);
  if (values[0] !== undefined && !isStorableText(values[0]))
    throw oauthError('invalid_request', `The parameter ${name} must not contain NUL (%00).`);
  return values[0] === '' ? undefined : values[0];
}

/** Space-separated scopes (RFC 6749 §3.3), de-duplicated, in the order given. */
export function parseScopes(value: string | undefined): string[] {
  return [...new Set((value ?? '').split(' ').filter(Boolean))];
}
