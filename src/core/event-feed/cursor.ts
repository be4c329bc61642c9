/**
 * The feed's cursors: a position in the feed as opaque base64url text, so a consumer keeps it as it is
 * and the server may change what is inside. A cursor this feed did not make is refused with 400.
 */
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { SwitchboardError } from '../errors.js';

const PREFIX = 'p';
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The cursor of a position (a non-negative integer). */
export function encodeCursor(position: number): string {
  return encodeBase64urlNoPadding(encoder.encode(`${PREFIX}${position}`));
}

/** The position of a cursor; `field` names where it came from in the error (`after`, `Last-Event-ID`). */
export function decodeCursor(cursor: string, field: string): number {
  const position = positionOf(cursor);
  if (position !== undefined) return position;
  throw new SwitchboardError(
    'bad_request',
    `The cursor in ${field} is not one this feed gave: pass a page's "next", an item's "cursor" or an event's id as it was.`,
    { details: [{ field, code: 'invalid_cursor', message: 'Not a cursor of this feed.' }] },
  );
}

function positionOf(cursor: string): number | undefined {
  if (cursor.length === 0 || cursor.length > 40 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let text: string;
  try {
    text = decoder.decode(decodeBase64urlIgnorePadding(cursor));
  } catch {
    return undefined;
  }
  if (!/^p(?:0|[1-9]\d{0,14})$/.test(text)) return undefined;
  return Number(text.slice(PREFIX.length));
}
