/**
 * A secret shown once after a redirect (a new API key, a rotated secret): the post that made it answers
 * 303 with the secret sealed in a short-lived cookie of the console's path, never in a URL; the next
 * page of the same session shows it and drops the cookie, so a reload shows it no more.
 */
import type { ShownSecret } from './route.js';
import { cookieOf, type SessionData, type Sessions } from './session.js';

const COOKIE = 'sb_console_once';
/** Long enough for the redirect, short enough that a forgotten one goes soon. */
const MAX_AGE_SECONDS = 300;

type Sealing = Pick<Sessions, 'sealText' | 'openText' | 'cookie'>;

/** The Set-Cookie that carries `secret` to the session's next page. */
export async function carrySecret(
  sessions: Sealing,
  session: SessionData,
  request: Request,
  secret: ShownSecret,
): Promise<string> {
  const sealed = await sessions.sealText(JSON.stringify({ session: session.id, ...secret }));
  return sessions.cookie(sealed, request, MAX_AGE_SECONDS, { name: COOKIE });
}

/** The secret the request carries for this session, if any (another session's opens nothing). */
export async function carriedSecret(
  sessions: Sealing,
  session: SessionData,
  request: Request,
): Promise<ShownSecret | undefined> {
  const sealed = cookieOf(request, COOKIE);
  const text = sealed ? await sessions.openText(sealed) : undefined;
  if (!text) return undefined;
  try {
    const data = JSON.parse(text) as { session?: unknown; label?: unknown; value?: unknown };
    return data.session === session.id && typeof data.label === 'string' && typeof data.value === 'string'
      ? { label: data.label, value: data.value }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The Set-Cookie that drops the carried secret once its page is shown. */
export function dropSecret(sessions: Sealing, request: Request): string {
  return sessions.cookie('', request, 0, { name: COOKIE });
}
