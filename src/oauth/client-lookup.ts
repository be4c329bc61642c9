import { isPossibleId } from '../core/storable-text.js';
import type { OAuthClientRecord } from '../core/storage/index.js';
import type { ServerContext } from './server-options.js';

/**
 * The client a `client_id` names, for the authorize and token endpoints alike, or null when no usable
 * client has it. Every way a client can be known ends here, so both endpoints accept and refuse the same.
 */
export async function findClient(ctx: ServerContext, clientId: string): Promise<OAuthClientRecord | null> {
  if (!isPossibleId(clientId)) return null;
  return ctx.storage.oauth.clients.get(clientId);
}
