import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

/**
 * Whether the field being resolved selects `name`, without arguments, on its result (fragments
 * included), so a list resolver can load what that field needs for all its items in one go.
 * Directives are not evaluated: a skipped field still counts, which costs only an unneeded preload.
 *
 * @example
 * if (selectsPlainField(info, 'orders')) await ctx.records.prefetch('order', clients.map((c) => c.id));
 */
export function selectsPlainField(info: GraphQLResolveInfo, name: string): boolean {
  const spread = new Set<string>();
  const visit = (set: SelectionSetNode | undefined): boolean => {
    if (!set) return false;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === name && !selection.arguments?.length) return true;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (visit(selection.selectionSet)) return true;
      } else if (!spread.has(selection.name.value)) {
        spread.add(selection.name.value);
        if (visit(info.fragments[selection.name.value]?.selectionSet)) return true;
      }
    }
    return false;
  };
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}
