/**
 * The JSON-RPC 2.0 messages MCP's Streamable HTTP transport carries, one per POST: what a request,
 * a notification and an answer look like, and the error codes the spec names.
 */

/** The JSON-RPC error codes MCP uses. */
export const JSON_RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** A request's id: a string or a number (never null in MCP). */
export type JsonRpcId = string | number;

/** A JSON-RPC request, or a notification when `id` is absent. */
export interface JsonRpcMessage {
  readonly jsonrpc: '2.0';
  readonly id?: JsonRpcId;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
}

/** A JSON-RPC error thrown by a method: becomes the answer's `error`. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Whether a parsed body is one JSON-RPC message (a request, notification or response). */
export function isMessage(value: unknown): value is JsonRpcMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return false;
  if ('id' in message && typeof message.id !== 'string' && typeof message.id !== 'number') return false;
  if ('params' in message && (typeof message.params !== 'object' || message.params === null)) return false;
  return 'method' in message ? typeof message.method === 'string' : 'result' in message || 'error' in message;
}

/** A success answer. */
export function result(id: JsonRpcId, value: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id, result: value };
}

/** An error answer; `id` is null when the request's could not be read. */
export function failure(id: JsonRpcId | null, error: JsonRpcError): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    },
  };
}
