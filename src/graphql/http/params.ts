import { SwitchboardError } from '../../core/errors.js';

/** The GraphQL-over-HTTP request parameters, checked. */
export interface GraphQLParams {
  readonly query: string;
  readonly operationName: string | undefined;
  readonly variables: Record<string, unknown> | undefined;
  readonly extensions: Record<string, unknown> | undefined;
}

/** Checks the parameters of a POST body (a JSON object). Wrong types are a `bad_request`. */
export function paramsFromBody(body: unknown): GraphQLParams {
  if (!isMap(body)) throw badRequest('The body must be a JSON object with a "query".');
  return checkParams(body.query, body.operationName, body.variables, body.extensions);
}

/** Reads the parameters of a GET request from its URL; `variables` and `extensions` are JSON text. */
export function paramsFromUrl(url: URL): GraphQLParams {
  const get = (name: string): string | undefined => url.searchParams.get(name) ?? undefined;
  return checkParams(
    get('query'),
    get('operationName'),
    json(get('variables'), 'variables'),
    json(get('extensions'), 'extensions'),
  );
}

function checkParams(
  query: unknown,
  operationName: unknown,
  variables: unknown,
  extensions: unknown,
): GraphQLParams {
  if (query === undefined || query === null) throw badRequest('The "query" parameter is missing.');
  if (typeof query !== 'string') throw badRequest('The "query" parameter must be a string.');
  if (operationName != null && typeof operationName !== 'string')
    throw badRequest('The "operationName" parameter must be a string.');
  if (variables != null && !isMap(variables))
    throw badRequest('The "variables" parameter must be an object.');
  if (extensions != null && !isMap(extensions))
    throw badRequest('The "extensions" parameter must be an object.');
  return {
    query,
    operationName: (operationName as string | null) ?? undefined,
    variables: (variables as Record<string, unknown> | null) ?? undefined,
    extensions: (extensions as Record<string, unknown> | null) ?? undefined,
  };
}

function json(text: string | undefined, name: string): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(`The "${name}" parameter is not valid JSON.`);
  }
}

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function badRequest(message: string): SwitchboardError {
  return new SwitchboardError('bad_request', message);
}
