import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
  visit,
} from 'graphql';
import depthLimit from 'graphql-depth-limit';
import type { GraphQLLimits } from './limits.js';

interface Measure {
  /** Field selections once every fragment spread is expanded. */
  readonly selections: number;
  /** Nesting depth counting every field, `__schema` and friends included. */
  readonly depth: number;
}

/**
 * Checks a document that already passed the GraphQL validation rules against the server's limits.
 *
 * graphql-depth-limit counts depth but has holes, so it is guarded here: it only sees documents whose
 * fragments are all defined and acyclic (the spec rules ran first: it would throw or recurse forever),
 * whose expanded size is bounded (it walks every spread without memo: exponential fan-out), and the
 * introspection fields it skips are measured separately.
 */
export function checkDocumentLimits(document: DocumentNode, limits: GraphQLLimits): GraphQLError[] {
  const aliases = countAliases(document);
  if (aliases > limits.maxAliases)
    return [
      limitError(
        `The query uses ${aliases} aliases; the limit is ${limits.maxAliases}.`,
        'too_many_aliases',
        limits.maxAliases,
      ),
    ];

  const measure = measurer(document);
  let deepest = 0;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const { selections, depth } = measure(definition.selectionSet);
    if (selections > limits.maxSelections)
      return [
        limitError(
          `The query selects more than ${limits.maxSelections} fields once its fragments are expanded.`,
          'query_too_complex',
          limits.maxSelections,
        ),
      ];
    deepest = Math.max(deepest, depth);
  }

  const errors = runDepthLimit(document, limits.maxDepth);
  if (errors.length) return errors;
  // Anything deeper than maxDepth that graphql-depth-limit let through lies under an introspection field.
  if (deepest > Math.max(limits.maxDepth, limits.maxIntrospectionDepth))
    return [
      limitError(
        `The introspection query is deeper than the introspection depth limit of ${limits.maxIntrospectionDepth}.`,
        'query_too_deep',
        limits.maxIntrospectionDepth,
      ),
    ];
  return [];
}

function runDepthLimit(document: DocumentNode, maxDepth: number): GraphQLError[] {
  const errors: GraphQLError[] = [];
  const tooDeep = (): GraphQLError =>
    limitError(`The query is deeper than the depth limit of ${maxDepth}.`, 'query_too_deep', maxDepth);
  // The rule only uses these two members of ValidationContext.
  const context = {
    getDocument: () => document,
    reportError: () => {
      if (!errors.length) errors.push(tooDeep());
    },
  } as unknown as ValidationContext;
  try {
    depthLimit(maxDepth)(context);
  } catch {
    if (!errors.length) errors.push(tooDeep());
  }
  return errors;
}

function countAliases(document: DocumentNode): number {
  let count = 0;
  visit(document, {
    Field(node) {
      if (node.alias) count++;
    },
  });
  return count;
}

/** Measures selection sets with one memo entry per fragment, so repeated spreads cost nothing. */
function measurer(document: DocumentNode): (set: SelectionSetNode) => Measure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const memo = new Map<string, Measure>();
  const visiting = new Set<string>();

  const measure = (set: SelectionSetNode): Measure => {
    let selections = 0;
    let depth = 0;
    for (const selection of set.selections) {
      let inner: Measure = { selections: 0, depth: 0 };
      if (selection.kind === Kind.FIELD) {
        if (selection.selectionSet) {
          const sub = measure(selection.selectionSet);
          inner = { selections: sub.selections, depth: sub.depth + 1 };
        }
        selections += 1;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = measure(selection.selectionSet);
      } else {
        inner = fragment(selection.name.value);
      }
      selections = Math.min(selections + inner.selections, Number.MAX_SAFE_INTEGER);
      depth = Math.max(depth, inner.depth);
    }
    return { selections, depth };
  };

  const fragment = (name: string): Measure => {
    const known = memo.get(name);
    if (known) return known;
    const definition = fragments.get(name);
    // Undefined or cyclic fragments were refused by the spec rules; count them as empty to stay total.
    if (!definition || visiting.has(name)) return { selections: 0, depth: 0 };
    visiting.add(name);
    const result = measure(definition.selectionSet);
    visiting.delete(name);
    memo.set(name, result);
    return result;
  };
  return measure;
}

function limitError(message: string, code: string, limit: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code, limit } });
}
