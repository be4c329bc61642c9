import { isPossibleId } from '../core/storable-text.js';
import type { OAuthClientRecord } from '../core/storage/index.js';
import type { Requester } from '../http/request-context.js';
import { isDisabled } from './client-controls.js';
import { isMetadataDocumentUrl, metadataDocumentClient } from './client-metadata-document.js';
import type { ServerContext } from './server-options.js';

/**
 * The client a `client_id` names, for the authorize and token endpoints alike, or null when no usable
 * client has it. Every way a client can be known ends here, so both endpoints accept and refuse the same.
 * A URL names a client metadata document (client-metadata-document.ts), fetched on `requester`'s budget;
 * one that cannot be used throws `invalid_client` saying why.
 */
export async function findClient(
  ctx: ServerContext,
  clientId: string,
  requester?: Requester,
): Promise<OAuthClientRecord | null> {
  if (!isPossibleId(clientId)) return null;
  const documents = ctx.clientMetadataDocuments;
  if (documents && isMetadataDocumentUrl(clientId))
    return metadataDocumentClient(ctx, documents, clientId, requester);
  const client = await ctx.storage.oauth.clients.get(clientId);
  return client && !isDisabled(client) ? client : null; // a disabled client is as unknown
}
