/**
 * `importClients(file:)`: clients from a CSV upload, one create per row through the clients' service
 * acting for the caller (so every row is validated, allowed or refused as a single create is, and
 * emits its event), rows that fail reported by line rather than failing the file.
 */
import { isSwitchboardError } from '../../core/errors.js';
import type { ResourceRecord } from '../../core/storage/index.js';
import type { GraphQLContext } from '../context.js';
import type { Upload } from '../upload.js';
import { readCsvRows } from './csv.js';

export interface ImportResult {
  readonly created: ResourceRecord[];
  readonly rejected: { line: number; code: string; message: string }[];
}

export async function importClients(file: Upload, ctx: GraphQLContext): Promise<ImportResult> {
  const created: ResourceRecord[] = [];
  const rejected: { line: number; code: string; message: string }[] = [];
  const clients = ctx.domain.resources.client!.for(ctx.principal);
  let line = 1;
  try {
    for await (const row of readCsvRows(file.stream(), { maxRows: ctx.limits.maxImportRows })) {
      line = row.line;
      try {
        created.push(await clients.create(row.fields));
      } catch (error) {
        if (!isSwitchboardError(error)) throw error;
        rejected.push({ line: row.line, code: error.code, message: error.message });
      }
    }
  } catch (error) {
    // The file broke off (too large, too many rows, malformed): keep what was imported and say where.
    if (!isSwitchboardError(error)) throw error;
    rejected.push({ line: line + 1, code: error.code, message: error.message });
  }
  return { created, rejected };
}
