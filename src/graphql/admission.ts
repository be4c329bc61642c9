import { GraphQLError, getOperationAST, type OperationDefinitionNode, OperationTypeNode } from 'graphql';
import type { GraphQLLimits } from './limits.js';
import type { Prepared, PreparedDocument } from './prepare.js';

/** What a request to run a GraphQL operation is charged, whatever its transport. */
export interface Charge {
  readonly cls: 'graphql' | 'subscribe';
  readonly units: number;
}

/** What a request asks to run, checked: the operation and its charge. */
export interface Admitted {
  readonly ok: true;
  readonly prepared: PreparedDocument;
  readonly operation: OperationDefinitionNode;
  /** A subscription one `subscribe`; a query or mutation its cost in `graphql`. */
  readonly charge: Charge;
  /** What it is charged instead when its transport refuses it after all (a mutation over GET …). */
  readonly refusal: Charge;
}

/** A request whose document or operation was refused, and what that is charged: its tokens. */
export interface Refused {
  readonly ok: false;
  readonly errors: readonly GraphQLError[];
  readonly charge: Charge;
}

export type Admission = Admitted | Refused;

/** The GraphQL-over-HTTP request parameters admission reads. */
export interface OperationRequest {
  readonly query: string;
  readonly operationName?: string | null | undefined;
  readonly variables?: Readonly<Record<string, unknown>> | null | undefined;
}

/**
 * The checks every transport makes before it runs an operation (HTTP, Server-Sent Events, WebSocket),
 * so that each charges the same: the document prepared (parsed, validated, within the limits), the
 * operation named, its cost within `maxCost`. A refusal is charged too, by the document's tokens:
 * sending documents the server must read and refuse is never free.
 */
export function admit(
  prepare: (query: string) => Prepared,
  limits: GraphQLLimits,
  request: OperationRequest,
): Admission {
  const prepared = prepare(request.query);
  if (!prepared.ok) return { ok: false, errors: prepared.errors, charge: refusalOf(prepared) };
  const operation = getOperationAST(prepared.document, request.operationName);
  if (!operation) {
    const message = request.operationName
      ? `The document has no operation named "${request.operationName}".`
      : 'The document has several operations: name the one to run in "operationName".';
    const errors = [new GraphQLError(message, { extensions: { code: 'bad_request' } })];
    return { ok: false, errors, charge: refusalOf(prepared) };
  }
  const cost = prepared.cost(operation, request.variables);
  if (cost > limits.maxCost)
    return {
      ok: false,
      errors: [
        new GraphQLError(
          `The query costs ${cost}, more than the limit of ${limits.maxCost} (a list field costs its selection times its limit).`,
          { extensions: { code: 'query_too_complex', limit: limits.maxCost } },
        ),
      ],
      charge: refusalOf(prepared),
    };
  const charge: Charge =
    operation.operation === OperationTypeNode.SUBSCRIPTION
      ? { cls: 'subscribe', units: 1 }
      : { cls: 'graphql', units: cost };
  return {
    ok: true,
    prepared,
    operation,
    charge,
    // Counted only if the transport refuses it: an admitted document's tokens are rarely needed.
    get refusal(): Charge {
      return refusalOf(prepared);
    },
  };
}

function refusalOf(prepared: Prepared): Charge {
  return { cls: 'graphql', units: prepared.tokens };
}
