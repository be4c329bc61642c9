import type { WebhookDeliveryRecord, WebhookHeldSubjectRecord } from '../../core/storage/index.js';

/**
 * `listHeld` over an endpoint's pending deliveries grouped by subject (each group in sequence order): a
 * group is held when its first delivery failed at least once and others wait behind it.
 */
export function heldSubjects(
  groups: readonly (readonly WebhookDeliveryRecord[])[],
  limit: number,
): WebhookHeldSubjectRecord[] {
  const held: WebhookHeldSubjectRecord[] = [];
  for (const [blocking, ...waiting] of groups) {
    if (!blocking || waiting.length === 0 || blocking.attempts < 1) continue;
    const since = Math.min(...waiting.map((d) => d.createdAt));
    held.push({ subject: blocking.subject!, blocking, waiting: waiting.length, since });
  }
  held.sort((a, b) => a.since - b.since || (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
  return held.slice(0, limit);
}
