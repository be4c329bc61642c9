import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/core/errors.js';
import { decodeCursor, encodeCursor } from '../../src/core/event-feed/index.js';

describe('event feed cursors', () => {
  it('are opaque base64url text that gives its position back', () => {
    for (const position of [0, 1, 42, 999_999_999_999_999]) {
      const cursor = encodeCursor(position);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(cursor, 'after')).toBe(position);
    }
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'cDE=='],
    ['not made by the feed', Buffer.from('42').toString('base64url')],
    ['a leading zero', Buffer.from('p042').toString('base64url')],
    ['a position beyond 15 digits', Buffer.from('p1234567890123456').toString('base64url')],
    ['a negative position', Buffer.from('p-1').toString('base64url')],
    ['too long', 'a'.repeat(41)],
    ['not UTF-8', Buffer.from([0xff, 0xfe]).toString('base64url')],
  ])('refuses a cursor that is %s, naming where it came from', (_what, cursor) => {
    let error: unknown;
    try {
      decodeCursor(cursor, 'Last-Event-ID');
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(SwitchboardError);
    expect(error).toMatchObject({
      code: 'bad_request',
      details: [{ field: 'Last-Event-ID', code: 'invalid_cursor' }],
    });
  });
});
