import {
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  type GraphQLSchema,
  isScalarType,
  isSpecifiedScalarType,
  type OperationDefinitionNode,
  OperationTypeNode,
  parse,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Logger } from '../core/runtime.js';
import { MASKED_SERIALIZATION_ERROR } from './format-error.js';

/** Compiles one operation of an accepted document; `undefined` means graphql-js runs it instead. */
export type Compiler = (
  document: DocumentNode,
  operation: OperationDefinitionNode,
) => CompiledQuery | undefined;

export interface CompilerOptions {
  readonly logger: Logger;
}

/**
 * A graphql-jit compiler for the schema; it compiles nothing where the runtime refuses code generation
 * (`new Function`), as Cloudflare Workers and pages with a strict CSP do.
 *
 * Subscriptions are never compiled: they run through graphql-ws and graphql-js. An operation graphql-jit
 * cannot compile is logged once and runs through graphql-js for as long as its document stays cached.
 */
export function createCompiler(schema: GraphQLSchema, options: CompilerOptions): Compiler {
  const { logger } = options;
  // Asked at the first operation, not here: a Cloudflare Worker allows code generation in its global
  // scope, where a switchboard is often made, and refuses it in the requests that run the operations.
  /** graphql-jit's options once it was found to work here, `null` where it does not. */
  let compilerOptions: { customSerializers: Record<string, (value: unknown) => unknown> } | null | undefined;
  const usable = (): typeof compilerOptions => {
    if (!canGenerateCode()) {
      logger.log('info', 'code generation is refused here: GraphQL runs through graphql-js');
      return null;
    }
    if (!runsSchema(schema)) {
      logger.log(
        'warn',
        'graphql-jit loads another copy of graphql than the schema: GraphQL runs through graphql-js',
      );
      return null;
    }
    return { customSerializers: maskedSerializers(schema, logger) };
  };
  return (document, operation) => {
    if (operation.operation === OperationTypeNode.SUBSCRIPTION) return undefined;
    compilerOptions ??= usable();
    if (compilerOptions === null) return undefined;
    const name = operation.name?.value;
    const compiled = compileQuery(schema, document, name, compilerOptions);
    if (isCompiledQuery(compiled)) return compiled;
    logger.log('warn', 'graphql-jit could not compile an operation: graphql-js runs it', {
      operation: name,
      error: compiled.errors?.map((e) => e.message).join(' '),
    });
    return undefined;
  };
}

let codeGeneration: boolean | undefined;

/** Whether `new Function` works here; asked once, since graphql-jit needs it for every document. */
function canGenerateCode(): boolean {
  if (codeGeneration === undefined) {
    try {
      codeGeneration = new Function('return true')() === true;
    } catch (error) {
      if (!(error instanceof EvalError)) throw error;
      codeGeneration = false;
    }
  }
  return codeGeneration;
}

/**
 * graphql-jit `require`s graphql: where a bundler gives our ESM imports graphql's ESM build, it gets a
 * second copy whose `instanceof` checks fail on the schema's types. One small introspection read,
 * compiled and run, shows whether it works with this schema.
 */
function runsSchema(schema: GraphQLSchema): boolean {
  try {
    const probe = compileQuery(schema, parse('{ __schema { queryType { kind } } }'));
    if (!isCompiledQuery(probe)) return false;
    const result = probe.query(undefined, undefined, {}) as ExecutionResult<{
      __schema?: { queryType?: { kind?: string } };
    }>;
    return !result.errors?.length && result.data?.__schema?.queryType?.kind === 'OBJECT';
  } catch {
    return false;
  }
}

/**
 * graphql-jit keeps only the message of an error a scalar's `serialize` throws. graphql-js shows a
 * GraphQLError's message but masks anything else (a bug, not the caller's fault) as `internal`; these
 * wrappers keep that: an unexpected error is logged here and travels as a marker `formatError` masks.
 */
function maskedSerializers(
  schema: GraphQLSchema,
  logger: Logger,
): Record<string, (value: unknown) => unknown> {
  const serializers: Record<string, (value: unknown) => unknown> = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isScalarType(type) || isSpecifiedScalarType(type)) continue;
    serializers[type.name] = (value) => {
      let serialized: unknown;
      try {
        serialized = type.serialize(value);
      } catch (error) {
        if (error instanceof GraphQLError) throw error;
        throw unexpected(logger, type.name, error);
      }
      // graphql-js refuses an undefined result with a plain (masked) error too.
      if (serialized === undefined)
        throw unexpected(logger, type.name, new Error('serialize returned undefined'));
      return serialized;
    };
  }
  return serializers;
}

function unexpected(logger: Logger, scalar: string, error: unknown): Error {
  logger.log('error', 'graphql scalar serialization failed', {
    scalar,
    error: String(error),
    stack: (error as Error | undefined)?.stack,
  });
  return new Error(MASKED_SERIALIZATION_ERROR);
}
