/**
 * What an operation costs against the caller's `graphql` budget and the `maxCost` limit, and what a
 * refused document costs instead.
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isObjectType,
  Kind,
  Lexer,
  type OperationDefinitionNode,
  type SelectionSetNode,
  Source,
  TokenKind,
} from 'graphql';
import type { GraphQLLimits } from './limits.js';

/** What {@link operationCost} measured. */
export interface OperationCost {
  readonly cost: number;
  /** Whether a `limit` came from a variable: the cost then holds for these variables only. */
  readonly variable: boolean;
}

type ListLimits = Pick<GraphQLLimits, 'defaultListLimit' | 'maxListLimit'>;

/**
 * The multiplier cost model (GitHub's, graphql-cost-analysis's): every field costs 1, and a list field
 * also the cost of its selection times the items it may return. That is its `limit` (a literal, or the
 * variable's value), kept within 1‥`maxListLimit`. Without one: at the root, the `defaultListLimit`
 * the server then returns; below it, `maxListLimit`, what a client's nested list (its orders) then
 * returns at most, which a smaller `limit` makes cheaper; a list that takes no `limit` (a delivery's
 * attempts) is bounded by the server and priced at `defaultListLimit`. Fragments count once expanded.
 * Introspection fields count one a field, as graphql-armor leaves introspection out of its cost: their
 * depth and size have limits of their own.
 *
 * @example
 * // 1 + 20 × (id + name + email + orders + 100 × (id + status)) = 4081
 * operationCost(schema, parse('{ clients(limit: 20) { id name email orders { id status } } }'), op, limits);
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  limits: ListLimits,
  variables?: Readonly<Record<string, unknown>> | null,
): OperationCost {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]);
  const memo = new Map<string, number>();
  const visiting = new Set<string>();
  let variable = false;

  /** How many items a list field may return; 1 for any other field. */
  const multiplier = (node: FieldNode, field: GraphQLField<unknown, unknown>, root: boolean): number => {
    if (!isListType(getNullableType(field.type))) return 1;
    const argument = node.arguments?.find((a) => a.name.value === 'limit')?.value;
    let limit: unknown;
    if (argument?.kind === Kind.INT) limit = Number(argument.value);
    else if (argument?.kind === Kind.VARIABLE) {
      variable = true;
      const name = argument.name.value;
      const fallback = operation.variableDefinitions?.find(
        (d) => d.variable.name.value === name,
      )?.defaultValue;
      if (variables && name in variables) limit = variables[name];
      else if (fallback?.kind === Kind.INT) limit = Number(fallback.value);
    }
    if (typeof limit !== 'number' || !Number.isFinite(limit)) {
      // Pageable below the root and not paged: it may return every record (a client's orders).
      const pageable = field.args.some((a) => a.name === 'limit');
      return pageable && !root ? limits.maxListLimit : limits.defaultListLimit;
    }
    return Math.min(Math.max(Math.trunc(limit), 1), limits.maxListLimit);
  };

  const measure = (set: SelectionSetNode, parent: GraphQLNamedType | undefined): number => {
    let cost = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        // Undefined for `__typename`, `__schema`, `__type` and any field of an introspection type.
        const field =
          (isObjectType(parent) || isInterfaceType(parent)) && !isIntrospectionType(parent)
            ? parent.getFields()[selection.name.value]
            : undefined;
        let inner = 0;
        if (selection.selectionSet)
          inner = measure(selection.selectionSet, field && getNamedType(field.type));
        const times = field ? multiplier(selection, field, roots.has(parent as never)) : 1;
        cost += 1 + times * inner;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition?.name.value;
        cost += measure(selection.selectionSet, condition ? schema.getType(condition) : parent);
      } else {
        cost += fragment(selection.name.value);
      }
      cost = Math.min(cost, Number.MAX_SAFE_INTEGER);
    }
    return cost;
  };

  const fragment = (name: string): number => {
    const known = memo.get(name);
    if (known !== undefined) return known;
    const definition = fragments.get(name);
    // Undefined or cyclic fragments were refused by the spec rules; count them as empty to stay total.
    if (!definition || visiting.has(name)) return 0;
    visiting.add(name);
    const cost = measure(definition.selectionSet, schema.getType(definition.typeCondition.name.value));
    visiting.delete(name);
    memo.set(name, cost);
    return cost;
  };

  const root = schema.getRootType(operation.operation) ?? undefined;
  return { cost: Math.max(1, measure(operation.selectionSet, root)), variable };
}

/**
 * What a refused document is charged: its tokens (at most `max`, the parser's limit; a lexing error
 * ends the count), since reading and checking it is the work it took. So a refusal is never cheaper
 * than the query it imitates, which costs at least one a field.
 */
export function countTokens(query: string, max: number): number {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  try {
    while (count < max && lexer.advance().kind !== TokenKind.EOF) count++;
  } catch {
    // The tokens read before the text stopped being GraphQL.
  }
  return Math.max(1, count);
}
