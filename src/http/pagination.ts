/**
 * Offset pagination with `page` and `limit` (spec 4.2 rule 5) and RFC 8288 `Link` headers. Links are
 * path-absolute references, so they stay right behind proxies that rewrite the host.
 */
import { z } from 'zod';
import type { Page, Range } from '../core/storage/index.js';
import { type Answer, json } from './responses.js';

export const DEFAULT_PAGE_SIZE = 20;
/** The largest `limit` a list accepts unless the handler set passes another `maxPageSize`. */
export const MAX_PAGE_SIZE = 100;
const MAX_PAGE = 1_000_000;

/** The headers every list answer carries, for a route's documented `responses[200].headers`. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  Link: 'RFC 8288 links to the first, previous, next and last pages',
  ETag: 'Hash of the page, for If-None-Match',
};

/** Page size bounds; the handler set passes its `limits`. */
export interface PageLimits {
  readonly defaultPageSize?: number;
  readonly maxPageSize?: number;
}

/**
 * The `page` (from 1) and `limit` query parameters, with their defaults and bounds; extend it with
 * filters.
 *
 * @example
 * const query = pageQuery().extend({ city: z.string().optional() });
 */
export function pageQuery(limits: PageLimits = {}): PageQuerySchema {
  return buildPageQuery(limits);
}

function buildPageQuery(limits: PageLimits) {
  const max = limits.maxPageSize ?? MAX_PAGE_SIZE;
  const fallback = limits.defaultPageSize ?? DEFAULT_PAGE_SIZE;
  return z.object({
    page: z.coerce
      .number<string>()
      .int()
      .min(1)
      // Keeps offsets exact integers in every storage adapter.
      .max(MAX_PAGE)
      .default(1)
      .meta({ description: `Page number, from 1 (default 1) to ${MAX_PAGE}` }),
    limit: z.coerce
      .number<string>()
      .int()
      .min(1)
      .max(max)
      .default(fallback)
      .meta({ description: `Items per page, 1 to ${max} (default ${fallback})` }),
  });
}

/** The zod schema {@link pageQuery} returns: `page` and `limit`, coerced from query strings. */
export type PageQuerySchema = ReturnType<typeof buildPageQuery>;

/** The storage range of a page. */
export function rangeOf(query: { page: number; limit: number }): Range {
  return { offset: (query.page - 1) * query.limit, limit: query.limit };
}

/**
 * A list answer: `{ items, page, limit, total }` plus a `Link` header with first/prev/next/last.
 *
 * @example
 * return paginated(await store.list(filter, rangeOf(query)), query, url, (c) => c);
 */
export function paginated<T>(
  page: Page<T>,
  query: { page: number; limit: number },
  url: URL,
  present: (item: T) => unknown = (item) => item,
): Answer {
  const body = { items: page.items.map(present), page: query.page, limit: query.limit, total: page.total };
  return json(body, { headers: { link: linkHeader(url, query, page.total) } });
}

/** RFC 8288 `Link` value for a page of `total` items: first, prev (if any), next (if any), last. */
export function linkHeader(url: URL, query: { page: number; limit: number }, total: number): string {
  const last = Math.max(1, Math.ceil(total / query.limit));
  const to = (page: number): string => {
    const params = new URLSearchParams(url.search);
    params.set('page', String(page));
    params.set('limit', String(query.limit));
    return `<${url.pathname}?${params}>`;
  };
  const links = [`${to(1)}; rel="first"`];
  if (query.page > 1) links.push(`${to(Math.min(query.page - 1, last))}; rel="prev"`);
  if (query.page < last) links.push(`${to(query.page + 1)}; rel="next"`);
  links.push(`${to(last)}; rel="last"`);
  return links.join(', ');
}
