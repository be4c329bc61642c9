/**
 * The memory adapter's index of pending webhook deliveries: per endpoint a min-heap by the time each
 * delivery is next due (its `nextAttemptAt`, or the end of its lease while one is held), and per endpoint
 * the deliveries leased now. A claim costs O(log n) per delivery in the *pending* count plus one look at
 * each endpoint; delivered history is never visited. Entries are checked against the stored record
 * when they come up, so an entry left behind by a later write (or a rolled-back one) is simply dropped.
 *
 * Ordered endpoints: pending deliveries with a subject are grouped per endpoint and subject. A claim
 * that meets one behind an earlier pending delivery of its group takes it off the heap ("parks" it); when
 * a delivery leaves its group (succeeded, dead, skipped, gone), the group's new first one is put back.
 * So a held subject costs a claim nothing however many of its events wait.
 */
import type { WebhookDeliveryRecord } from '../../core/storage/index.js';

interface Entry {
  readonly due: number;
  readonly id: string;
}

/** What the queue asks of the rest of the storage to keep an ordered endpoint's subjects in order. */
export interface DeliveryOrder {
  /** Whether the endpoint's `ordering` is `subject`. */
  readonly ordered: (endpointId: string) => boolean;
  /** Whether an event of the subject with a lower sequence is still in the outbox, not yet relayed. */
  readonly unrelayedBefore: (subject: string, sequence: number) => boolean;
}

export interface DeliveryQueue {
  /** Indexes a delivery's new state (call after every write of one). */
  track(delivery: WebhookDeliveryRecord): void;
  /** Forgets a delivery that is gone. */
  forget(id: string): void;
  /** Puts back every parked delivery of the endpoint (its ordering changed). */
  unpark(endpointId: string): void;
  /** The pending deliveries of each subject of the endpoint, in sequence order (its held subjects). */
  subjects(endpointId: string): WebhookDeliveryRecord[][];
  /** How many deliveries are pending (claimed ones included). */
  pending(): number;
  /**
   * Takes up to `limit` due deliveries, oldest due first, at most `maxPerEndpoint` (or the endpoint's own
   * cap) leased per endpoint (leases already held count); `lease` writes each one's lease (and tracks it).
   */
  claim(options: {
    readonly now: number;
    readonly limit: number;
    readonly maxPerEndpoint: number;
    /** Caps replacing `maxPerEndpoint` for some endpoints. */
    readonly endpointLimits?: ReadonlyMap<string, number> | undefined;
    readonly lease: (delivery: WebhookDeliveryRecord) => WebhookDeliveryRecord;
  }): WebhookDeliveryRecord[];
}

/** When a pending delivery can next be claimed: the end of a lease it holds, else its next attempt. */
function dueOf(d: WebhookDeliveryRecord): number | null {
  if (d.leaseUntil !== null && (d.nextAttemptAt === null || d.leaseUntil > d.nextAttemptAt))
    return d.leaseUntil;
  return d.nextAttemptAt;
}

const unordered: DeliveryOrder = { ordered: () => false, unrelayedBefore: () => false };

export function createDeliveryQueue(
  deliveries: ReadonlyMap<string, WebhookDeliveryRecord>,
  order: DeliveryOrder = unordered,
): DeliveryQueue {
  const queues = new Map<string, Heap>();
  /** id → the due of its latest entry: any other entry of it is stale. */
  const scheduled = new Map<string, number>();
  /** endpoint id → ids leased (possibly expired; pruned when counted). */
  const leases = new Map<string, Set<string>>();
  /** `<endpoint id> <subject>` → its pending deliveries, id → sequence. */
  const groups = new Map<string, Map<string, number>>();
  /** id → the group it is in. */
  const groupOf = new Map<string, string>();
  /** id → endpoint id of the deliveries taken off their heap behind an earlier one of their subject. */
  const parked = new Map<string, string>();

  function forget(id: string): void {
    scheduled.delete(id);
    parked.delete(id);
    leave(id);
  }

  function push(endpointId: string, entry: Entry): void {
    let heap = queues.get(endpointId);
    if (!heap) {
      heap = new Heap();
      queues.set(endpointId, heap);
    }
    heap.push(entry);
  }

  function schedule(endpointId: string, entry: Entry): void {
    scheduled.set(entry.id, entry.due);
    parked.delete(entry.id);
    push(endpointId, entry);
  }

  /** Back on its heap, at the due it was parked with. */
  function unparkOne(id: string): void {
    const endpointId = parked.get(id);
    const due = scheduled.get(id);
    parked.delete(id);
    if (endpointId !== undefined && due !== undefined) push(endpointId, { due, id });
  }

  /** The group's member with the lowest sequence. */
  function firstOf(group: Map<string, number>): [string, number] | undefined {
    let first: [string, number] | undefined;
    for (const member of group) if (!first || member[1] < first[1]) first = member;
    return first;
  }

  function leave(id: string): void {
    const key = groupOf.get(id);
    if (key === undefined) return;
    groupOf.delete(id);
    const group = groups.get(key)!;
    group.delete(id);
    if (group.size === 0) groups.delete(key);
    else unparkOne(firstOf(group)![0]);
  }

  function regroup(d: WebhookDeliveryRecord): void {
    const key =
      d.status === 'pending' && d.subject != null && d.sequence != null
        ? `${d.endpointId} ${d.subject}`
        : null;
    if (groupOf.get(d.id) === (key ?? undefined)) return;
    leave(d.id);
    if (key === null) return;
    groupOf.set(d.id, key);
    const group = groups.get(key) ?? new Map<string, number>();
    group.set(d.id, d.sequence!);
    groups.set(key, group);
  }

  /**
   * Whether an ordered endpoint's delivery must wait: `behind` an earlier pending one of its subject
   * (parked until that one ends), or `unrelayed` while an earlier event of the subject is still being
   * fanned out (looked at again at the next claim).
   */
  function waits(d: WebhookDeliveryRecord): 'behind' | 'unrelayed' | null {
    if (d.subject == null || d.sequence == null || !order.ordered(d.endpointId)) return null;
    const group = groups.get(`${d.endpointId} ${d.subject}`);
    const first = group && firstOf(group);
    if (first && first[1] < d.sequence) return 'behind';
    return order.unrelayedBefore(d.subject, d.sequence) ? 'unrelayed' : null;
  }

  function track(d: WebhookDeliveryRecord): void {
    regroup(d);
    const due = d.status === 'pending' ? dueOf(d) : null;
    if (due === null) {
      forget(d.id);
      return;
    }
    if (scheduled.get(d.id) !== due) schedule(d.endpointId, { due, id: d.id });
    if (d.leaseUntil !== null) {
      const held = leases.get(d.endpointId) ?? new Set<string>();
      held.add(d.id);
      leases.set(d.endpointId, held);
    }
  }

  function leasedNow(endpointId: string, now: number): number {
    const held = leases.get(endpointId);
    if (!held) return 0;
    for (const id of held) {
      const d = deliveries.get(id);
      if (d?.status !== 'pending' || d.leaseUntil === null || d.leaseUntil <= now) held.delete(id);
    }
    if (held.size === 0) leases.delete(endpointId);
    return held.size;
  }

  /** The endpoint's next live entry, dropping stale ones; undefined when its queue is empty. */
  function head(endpointId: string, heap: Heap): Entry | undefined {
    for (let top = heap.peek(); top; top = heap.peek()) {
      const d = deliveries.get(top.id);
      if (scheduled.get(top.id) === top.due && d?.status === 'pending') return top;
      heap.pop();
    }
    queues.delete(endpointId);
    return undefined;
  }

  return {
    track,
    forget,
    unpark(endpointId) {
      for (const [id, of] of [...parked]) if (of === endpointId) unparkOne(id);
    },
    subjects(endpointId) {
      const found: WebhookDeliveryRecord[][] = [];
      const prefix = `${endpointId} `;
      for (const [key, group] of groups) {
        if (!key.startsWith(prefix)) continue;
        const members = [...group.keys()].map((id) => deliveries.get(id)!);
        found.push(members.sort((a, b) => a.sequence! - b.sequence!));
      }
      return found;
    },
    pending: () => scheduled.size,
    claim({ now, limit, maxPerEndpoint, endpointLimits, lease }) {
      // Endpoints with something due and room for another lease.
      const open: { endpointId: string; heap: Heap; room: number }[] = [];
      for (const [endpointId, heap] of queues) {
        const top = head(endpointId, heap);
        if (!top || top.due > now) continue;
        const room = (endpointLimits?.get(endpointId) ?? maxPerEndpoint) - leasedNow(endpointId, now);
        if (room > 0) open.push({ endpointId, heap, room });
      }
      const claimed: WebhookDeliveryRecord[] = [];
      /** Entries passed over this time (their subject's earlier event is still being fanned out). */
      const later: { endpointId: string; entry: Entry }[] = [];
      while (claimed.length < limit && open.length > 0) {
        // Every open queue's top was checked by head() when it was opened or last popped.
        let pick = 0;
        for (let i = 1; i < open.length; i++)
          if (open[i]!.heap.peek()!.due < open[pick]!.heap.peek()!.due) pick = i;
        const queue = open[pick]!;
        const entry = queue.heap.pop()!;
        const d = deliveries.get(entry.id)!;
        const due = dueOf(d);
        const wait = due !== null && due > now ? null : waits(d);
        if (due !== null && due > now) {
          // Written behind the index's back (a rollback): file it under its real time.
          if (due !== entry.due) schedule(queue.endpointId, { due, id: d.id });
        } else if (wait === 'behind') {
          parked.set(d.id, queue.endpointId);
        } else if (wait === 'unrelayed') {
          later.push({ endpointId: queue.endpointId, entry });
        } else {
          scheduled.delete(d.id);
          claimed.push(lease(d));
          queue.room--;
        }
        const next = head(queue.endpointId, queue.heap);
        if (queue.room === 0 || !next || next.due > now) open.splice(pick, 1);
      }
      for (const { endpointId, entry } of later) push(endpointId, entry);
      return claimed;
    },
  };
}

/** A binary min-heap of entries by due time, then id. */
class Heap {
  readonly #items: Entry[] = [];

  peek(): Entry | undefined {
    return this.#items[0];
  }

  push(entry: Entry): void {
    const items = this.#items;
    items.push(entry);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): Entry | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < items.length && before(items[left]!, items[least]!)) least = left;
      if (right < items.length && before(items[right]!, items[least]!)) least = right;
      if (least === i) return top;
      [items[i], items[least]] = [items[least]!, items[i]!];
      i = least;
    }
  }
}

function before(a: Entry, b: Entry): boolean {
  return a.due < b.due || (a.due === b.due && a.id < b.id);
}
