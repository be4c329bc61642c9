/** The media types the GraphQL endpoint can answer with. */
export type MediaType = 'application/graphql-response+json' | 'application/json' | 'text/html';

interface Range {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/**
 * Picks the response media type from an `Accept` header (RFC 9110 §12.5.1), or null when none of
 * `offers` is acceptable. No header means `application/json`. When the client names both JSON types
 * with the same weight, `application/graphql-response+json` wins; a bare wildcard (`*∕*`) gets
 * `application/json`, as GraphQL over HTTP asks of servers during the media type transition.
 */
export function negotiate(accept: string | null, offers: readonly MediaType[]): MediaType | null {
  if (!accept?.trim()) return offers.includes('application/json') ? 'application/json' : (offers[0] ?? null);
  const ranges = accept
    .split(',')
    .map(parseRange)
    .filter((r): r is Range => r !== null);
  let best: { offer: MediaType; q: number; specificity: number } | null = null;
  for (const offer of offers) {
    const match = bestMatch(offer, ranges);
    if (!match || match.q <= 0) continue;
    const better =
      !best ||
      match.q > best.q ||
      (match.q === best.q && match.specificity > best.specificity) ||
      (match.q === best.q &&
        match.specificity === best.specificity &&
        match.specificity < 2 &&
        offer === 'application/json');
    if (better) best = { offer, ...match };
  }
  return best?.offer ?? null;
}

/**
 * {@link negotiate} for one list of offers, remembering the last header it read: a client sends the
 * same `Accept` on every request, so the header is parsed once per client run, not per request.
 */
export function createNegotiator(offers: readonly MediaType[]): (accept: string | null) => MediaType | null {
  let lastAccept: string | null | undefined;
  let lastMedia: MediaType | null = null;
  return (accept) => {
    if (accept !== lastAccept) {
      lastMedia = negotiate(accept, offers);
      lastAccept = accept;
    }
    return lastMedia;
  };
}

/** Whether the header names `mediaType` itself (not through a wildcard) with a weight above zero. */
export function namesExplicitly(accept: string | null, mediaType: MediaType): boolean {
  const match = bestMatch(
    mediaType,
    (accept ?? '')
      .split(',')
      .map(parseRange)
      .filter((r): r is Range => r !== null),
  );
  return match !== null && match.specificity === 2 && match.q > 0;
}

function bestMatch(offer: MediaType, ranges: readonly Range[]): { q: number; specificity: number } | null {
  const [type, subtype] = offer.split('/') as [string, string];
  let found: { q: number; specificity: number } | null = null;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    // The most specific range decides the weight (RFC 9110 §12.5.1).
    if (specificity >= 0 && (!found || specificity > found.specificity)) found = { q: range.q, specificity };
  }
  return found;
}

function parseRange(text: string): Range | null {
  const [mediaRange, ...params] = text.trim().toLowerCase().split(';');
  const [type, subtype] = (mediaRange ?? '').trim().split('/');
  if (!type || !subtype) return null;
  let q = 1;
  for (const param of params) {
    const [key, value] = param.trim().split('=');
    if (key === 'q') q = Number.isFinite(Number(value)) ? Number(value) : 0;
  }
  return { type, subtype, q };
}
