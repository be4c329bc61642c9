import {
  type ExecutionResult,
  execute,
  type GraphQLSchema,
  getVariableValues,
  type OperationDefinitionNode,
} from 'graphql';
import type { GraphQLContext } from './context.js';
import type { PreparedDocument } from './prepare.js';

/** One operation of a prepared document, with what it runs with. */
export interface OperationRun {
  readonly prepared: PreparedDocument;
  /** The operation to run, as `getOperationAST` chose it. */
  readonly operation: OperationDefinitionNode;
  readonly operationName?: string | undefined;
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
  readonly context: GraphQLContext;
}

/**
 * Runs a query or mutation through its graphql-jit compilation when it has one, else through graphql-js.
 * Both answer the same: variables are coerced by graphql-js first, so a refusal reads exactly as
 * graphql-js words it, and anything graphql-jit would refuse that graphql-js accepts runs on graphql-js.
 */
export async function executeOperation(schema: GraphQLSchema, run: OperationRun): Promise<ExecutionResult> {
  const compiled = run.prepared.compiled(run.operation);
  if (!compiled) return interpret(schema, run);
  const variables = run.variables ?? {};
  const definitions = run.operation.variableDefinitions;
  if (definitions?.length) {
    // graphql-js's own limit of 50 errors, as `execute` passes it.
    const coerced = getVariableValues(schema, definitions, variables, { maxErrors: 50 });
    if (coerced.errors) return { errors: coerced.errors };
  }
  const result = await compiled.query(undefined, run.context, variables);
  return 'data' in result ? result : interpret(schema, run);
}

function interpret(schema: GraphQLSchema, run: OperationRun): Promise<ExecutionResult> | ExecutionResult {
  return execute({
    schema,
    document: run.prepared.document,
    contextValue: run.context,
    variableValues: run.variables,
    operationName: run.operationName,
  });
}
