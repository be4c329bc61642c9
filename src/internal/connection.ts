/**
 * The connection a request came on, where the runtime adapter names one: the Node adapter's requests
 * answer their socket under this registry symbol (every copy of the library sees the same one). For
 * memos that hold for a connection's requests, such as the hash of the token a keep-alive client sends
 * with each of them; a request of any other runtime names none, and nothing is remembered.
 */
export const CONNECTION: unique symbol = Symbol.for('switchboard-kit.connection') as never;

/** The object standing for the request's connection, or undefined. */
export function connectionOf(request: Request): object | undefined {
  const connection = (request as { [CONNECTION]?: unknown })[CONNECTION];
  return typeof connection === 'object' && connection !== null ? connection : undefined;
}
