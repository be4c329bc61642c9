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
import { countTokens, operationCost } from './cost.js';
import { checkDocumentLimits } from './document-limits.js';
import type { GraphQLLimits } from './limits.js';

/** A document that passed parsing, validation and the limits. */
export interface PreparedDocument {
  readonly ok: true;
  readonly document: DocumentNode;
  /** The operation compiled by graphql-jit (on first use, then kept), or `undefined`: run graphql-js. */
  compiled(operation: OperationDefinitionNode): CompiledQuery | undefined;
  /**
   * What the operation costs against a GraphQL budget and `maxCost` ({@link operationCost}): measured
   * once, or with each request's variables when a `limit` is one.
   */
  cost(operation: OperationDefinitionNode, variables?: Readonly<Record<string, unknown>> | null): number;
  /** Its tokens: what it is charged if it is refused after all (no such operation, a transport's rule). */
  readonly tokens: number;
}

/** The errors that refused a document (a request error: no `data`). */
export interface RefusedDocument {
  readonly ok: false;
  readonly errors: readonly GraphQLError[];
  /** What the refusal is charged against a GraphQL budget: the document's tokens ({@link countTokens}). */
  readonly tokens: number;
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
    const refused = (errors: readonly GraphQLError[]): RefusedDocument => ({
      ok: false,
      errors,
      tokens: countTokens(query, limits.maxTokens),
    });
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: limits.maxTokens, noLocation: false });
    } catch (error) {
      return refused([parseError(error, limits.maxTokens)]);
    }
    const errors = validate(schema, document, rules, { maxErrors: 20 });
    if (errors.length) return refused(errors.map((e) => withCode(e, 'graphql_validation_failed')));
    const limited = checkDocumentLimits(document, limits);
    if (limited.length) return refused(limited);
    return accepted(query, document, { schema, limits, compile: options.compile });
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

interface Acceptance {
  readonly schema: GraphQLSchema;
  readonly limits: GraphQLLimits;
  readonly compile: Compiler | undefined;
}

function accepted(query: string, document: DocumentNode, options: Acceptance): PreparedDocument {
  const { schema, limits, compile } = options;
  // Costs that hold whatever the variables, by operation; the others are measured per request.
  const costs = new Map<OperationDefinitionNode, number>();
  const cost: PreparedDocument['cost'] = (operation, variables) => {
    const known = costs.get(operation);
    if (known !== undefined) return known;
    const measured = operationCost(schema, document, operation, limits, variables);
    if (!measured.variable) costs.set(operation, measured.cost);
    return measured.cost;
  };
  let tokens: number | undefined;
  const prepared = {
    ok: true as const,
    document,
    cost,
    // Counted only when a refusal needs it: most documents are never refused once accepted.
    get tokens(): number {
      tokens ??= countTokens(query, limits.maxTokens);
      return tokens;
    },
  };
  if (!compile) return Object.assign(prepared, { compiled: NOT_COMPILED });
  // Compiled lazily and per operation: a document may hold several, and most requests run only one.
  const compiled = new Map<OperationDefinitionNode, CompiledQuery | undefined>();
  return Object.assign(prepared, {
    compiled(operation: OperationDefinitionNode): CompiledQuery | undefined {
      if (compiled.has(operation)) return compiled.get(operation);
      const query = compile(document, operation);
      compiled.set(operation, query);
      return query;
    },
  });
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
