/**
 * Marking a version deprecated: every answer carries `Deprecation` (RFC 9745), `Sunset` (RFC 8594)
 * and a `Link` to the successor version (`rel="successor-version"`, RFC 5829).
 */

import type { HeaderTarget } from './cors.js';

export interface DeprecationNotice {
  /** When the version was (or will be) deprecated. */
  readonly deprecatedAt: Date;
  /** When it stops answering, if decided. */
  readonly sunsetAt?: Date;
  /** Base path or URL of the version to move to, e.g. `/api/v2`. */
  readonly successor?: string;
  /** A page explaining the migration (`rel="deprecation"`). */
  readonly documentation?: string;
}

/** Adds the deprecation headers to an answer. */
export function applyDeprecation(headers: HeaderTarget, notice: DeprecationNotice): void {
  // RFC 9745 §2.1: a Structured Field Date, `@` + Unix seconds.
  headers.set('deprecation', `@${Math.floor(notice.deprecatedAt.getTime() / 1000)}`);
  if (notice.sunsetAt) headers.set('sunset', notice.sunsetAt.toUTCString());
  if (notice.successor) headers.append('link', `<${notice.successor}>; rel="successor-version"`);
  if (notice.documentation) headers.append('link', `<${notice.documentation}>; rel="deprecation"`);
}
