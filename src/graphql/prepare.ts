import {
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { checkDocumentLimits } from './document-limits.js';
import type { GraphQLLimits } from './limits.js';

/** A document ready to execute, or the errors that refused it (a request error: no `data`). */
export type Prepared =
  | { readonly ok: true; readonly document: DocumentNode }
  | { readonly ok: false; readonly errors: readonly GraphQLError[] };

export interface PrepareOptions {
  readonly limits: GraphQLLimits;
  readonly introspection: boolean;
}

/**
 * Parse, validate and check limits, with an LRU cache keyed by the query text: a repeated query skips
 * all three. Refusals are cached too, so repeating a bad query costs nothing either.
 */
export function createPreparer(schema: GraphQLSchema, options: PrepareOptions): (query: string) => Prepared {
  const { limits } = options;
  const rules = options.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
  const cache = new LRUCache<string, Prepared>({
    max: limits.documentCacheSize,
    // Bounds memory by text held, not only by entry count.
    maxSize: limits.documentCacheSize * 10_000,
    sizeCalculation: (_, query) => query.length + 1,
  });

  function prepare(query: string): Prepared {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: limits.maxTokens, noLocation: false });
    } catch (error) {
      return { ok: false, errors: [parseError(error, limits.maxTokens)] };
    }
    const errors = validate(schema, document, rules, { maxErrors: 20 });
    if (errors.length)
      return { ok: false, errors: errors.map((e) => withCode(e, 'graphql_validation_failed')) };
    const limited = checkDocumentLimits(document, limits);
    if (limited.length) return { ok: false, errors: limited };
    return { ok: true, document };
  }

  return (query) => {
    const cached = cache.get(query);
    if (cached) return cached;
    const prepared = prepare(query);
    cache.set(query, prepared);
    return prepared;
  };
}

function parseError(error: unknown, maxTokens: number): GraphQLError {
  if (!(error instanceof GraphQLError)) return new GraphQLError('The query could not be parsed.');
  if (error.message.includes('tokens'))
    return new GraphQLError(`The query has more than ${maxTokens} tokens, the token limit.`, {
      extensions: { code: 'too_many_tokens', limit: maxTokens },
    });
  return withCode(error, 'graphql_parse_failed');
}

function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, code: error.extensions.code ?? code },
  });
}
