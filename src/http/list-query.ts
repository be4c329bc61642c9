/**
 * The arguments of a resource's list, read from its declaration once for every interface that lists
 * (REST's query string, MCP's `list_<plural>` tool): page and limit, each filter and search, the sort key.
 */
import { z } from 'zod';
import type { Resource } from '../core/resources/define.js';
import { sortSchemaOf } from '../core/resources/query.js';
import { type PageLimits, pageQuery } from './pagination.js';

/**
 * The schema of a list's arguments (page and limit bounded by `limits`). Fields in `hidden` (an
 * interface's, as MCP's `hide`) are neither filtered, searched nor sorted on.
 */
export function listQueryOf(resource: Resource, limits?: PageLimits, hidden: readonly string[] = []) {
  const shown = (field: string) => !hidden.includes(field);
  const filters = Object.fromEntries(
    resource.filters.filter(shown).map((f) => [
      f,
      filterSchemaOf(resource, f)
        .optional()
        .meta({ description: `Exact ${f}` }),
    ]),
  );
  const searches = Object.fromEntries(
    Object.entries(resource.search)
      .filter(([, field]) => shown(field))
      .map(([parameter, field]) => [
        parameter,
        z
          .string()
          .optional()
          .meta({ description: `Part of the ${field} (case-insensitive)` }),
      ]),
  );
  return pageQuery(limits).extend({
    ...filters,
    ...searches,
    sort: sortSchemaOf(resource, resource.sortable.filter(shown))
      .optional()
      .meta({ description: `Sort key; \`-\` before it for descending (default ${resource.createdField})` }),
  });
}

/** A filter's argument: one of the states or enum values where the field has them, else text. */
function filterSchemaOf(resource: Resource, field: string): z.ZodType<string> {
  if (field === resource.lifecycle?.field)
    return z.enum(Object.keys(resource.lifecycle.states) as [string, ...string[]]);
  let inner = resource.fields[field];
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable)
    inner = inner.unwrap() as z.ZodType;
  return inner instanceof z.ZodEnum ? (inner as z.ZodType<string>) : z.string();
}
