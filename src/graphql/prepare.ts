import {
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  NoSchemaIntrospectionCustomRule,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import type { Compiler } from './compile.js';
import { checkDocumentLimits, operationCost } from './document-limits.js';
import type { GraphQLLimits } from './limits.js';

/** A document that passed parsing, validation and the limits. */
export interface PreparedDocument {
  readonly ok: true;
  readonly document: DocumentNode;
  /** The operation compiled by graphql-jit (on first use, then kept), or `undefined`: run graphql-js. */
  compiled(operation: OperationDefinitionNode): CompiledQuery | undefined;
  /** What the operation costs against a GraphQL budget (its field selections), measured once. */
  cost(operation: OperationDefinitionNode): number;
}

/** The errors that refused a document (a request error: no `data`). */
export interface RefusedDocument {
  readonly ok: false;
  readonly errors: readonly GraphQLError[];
}

/** A document ready to execute, or the errors that refused it. */
export type Prepared = PreparedDocument | RefusedDocument;

export interface PrepareOptions {
  readonly limits: GraphQLLimits;
  readonly introspection: boolean;
  /** Compiles accepted operations; without it every operation runs through graphql-js. */
  readonly compile?: Compiler | undefined;
}

/**
 * Parse, validate and check limits, with an LRU cache keyed by the query text: a repeated query skips
 * all three, and its operations are compiled once. Refusals are cached too, so repeating a bad query
 * costs nothing either.
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
    return accepted(document, options.compile);
  }

  return (query) => {
    const cached = cache.get(query);
    if (cached) return cached;
    const prepared = prepare(query);
    cache.set(query, prepared);
    return prepared;
  };
}

const NOT_COMPILED = (): undefined => undefined;

function accepted(document: DocumentNode, compile: Compiler | undefined): PreparedDocument {
  const costs = new Map<OperationDefinitionNode, number>();
  const cost = (operation: OperationDefinitionNode): number => {
    let value = costs.get(operation);
    if (value === undefined) {
      value = operationCost(document, operation);
      costs.set(operation, value);
    }
    return value;
  };
  if (!compile) return { ok: true, document, compiled: NOT_COMPILED, cost };
  // Compiled lazily and per operation: a document may hold several, and most requests run only one.
  const compiled = new Map<OperationDefinitionNode, CompiledQuery | undefined>();
  return {
    ok: true,
    document,
    cost,
    compiled(operation) {
      if (compiled.has(operation)) return compiled.get(operation);
      const query = compile(document, operation);
      compiled.set(operation, query);
      return query;
    },
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
