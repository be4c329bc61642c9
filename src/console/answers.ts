/**
 * How the console answers: pages with its strict headers, See Other after a change, and the one way
 * a posted form is read.
 */
import { readText } from '../http/body.js';

/** Everything a console page loads comes from the console itself (house rule 12). */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // The host's logo (look.logoUrl) may be a path, a data: URL or an https URL; an image runs no script.
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The largest form any page posts, with room to spare; a bigger body is refused (413) unread. */
export const MAX_FORM_BYTES = 64 * 1024;

/** A console page: never cached (it holds the session's CSRF token), never framed, no sniffing. */
export function htmlResponse(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      ...headers,
    },
  });
}

/** 303 See Other: after a post, the browser GETs `location`, so a reload does not post again. */
export function seeOther(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...headers } });
}

/** A posted form, read within {@link MAX_FORM_BYTES}: `payload_too_large` as soon as it is over. */
export async function readForm(request: Request): Promise<URLSearchParams> {
  return new URLSearchParams(await readText(request, MAX_FORM_BYTES));
}
