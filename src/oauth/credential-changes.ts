import type { EventBus } from '../core/event-bus.js';
import type { Logger } from '../core/runtime.js';

/**
 * What changed about credentials the guard may hold: an API key (revoked, its scopes replaced), a grant
 * (revoked, widened, one of its access tokens revoked) or every grant of a client (disabled, deleted).
 */
export type CredentialChange =
  | { readonly apiKey: string }
  | { readonly grant: string }
  | { readonly client: string };

/** The bus topic of credential changes: ids only, never a secret nor its hash. */
export const CREDENTIALS_TOPIC = 'switchboard.credentials';

/**
 * Tells every instance's guard, this one's first, that credentials changed: call it once the change is
 * committed, so a guard that then reads the storage sees it. Never throws: the change stands, and a
 * guard that missed the message drops what it holds within its safety TTL.
 */
export async function announceCredentialChange(
  bus: EventBus | undefined,
  logger: Logger,
  change: CredentialChange,
): Promise<void> {
  if (!bus?.send) return;
  try {
    await bus.send(CREDENTIALS_TOPIC, JSON.stringify(change));
  } catch (error) {
    logger.log('error', 'could not announce a credential change', { change, error: String(error) });
  }
}

/** Reads a message of {@link CREDENTIALS_TOPIC}; `null` for anything else (an instance of a later version). */
export function parseCredentialChange(message: string): CredentialChange | null {
  try {
    const parsed: unknown = JSON.parse(message);
    if (typeof parsed !== 'object' || parsed === null) return null;
    for (const field of ['apiKey', 'grant', 'client'] as const) {
      const value = (parsed as Record<string, unknown>)[field];
      if (typeof value === 'string') return { [field]: value } as CredentialChange;
    }
    return null;
  } catch {
    return null;
  }
}
