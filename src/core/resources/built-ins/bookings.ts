import { z } from 'zod';
import { SwitchboardError } from '../../errors.js';
import { defineResource } from '../define.js';
import { text } from './fields.js';

/**
 * A client's appointment for a service: `requested → confirmed → completed`, and `requested` or
 * `confirmed → cancelled`. Two confirmed bookings of one service may not overlap.
 */
export const bookings = defineResource({
  name: 'booking',
  idPrefix: 'bkg',
  description: "A client's appointment for a service.",
  fields: {
    clientId: z.string(),
    service: text(200),
    startsAt: z.iso.datetime({ offset: true }).meta({ description: 'ISO-8601 date and time' }),
    durationMinutes: z
      .int()
      .min(5)
      .max(24 * 60),
    notes: z.string().max(2000).optional(),
  },
  immutable: ['clientId'],
  relations: { clientId: 'client' },
  owner: 'clientId',
  filters: ['service'],
  sort: ['startsAt'],
  lifecycle: {
    field: 'status',
    initial: 'requested',
    states: {
      requested: { to: ['confirmed', 'cancelled'] },
      confirmed: { to: ['completed', 'cancelled'] },
      completed: { to: [] },
      cancelled: { to: [] },
    },
  },
  events: { created: 'booking.requested' },
  scopes: {
    read: 'calendar.bookings.read',
    write: 'calendar.bookings.write',
    describe: { write: 'Request, confirm, cancel and complete bookings' },
  },
  async check(booking, others) {
    if (booking.status !== 'confirmed') return;
    const [start, end] = span(booking);
    for (const other of await others({ service: booking.service as string, status: 'confirmed' })) {
      const [otherStart, otherEnd] = span(other);
      if (start < otherEnd && otherStart < end)
        throw new SwitchboardError(
          'conflict',
          `${booking.service} is already booked from ${other.startsAt} for ${other.durationMinutes} minutes (${other.id}).`,
          {
            details: [
              { field: 'startsAt', code: 'overlaps', message: `Overlaps confirmed booking ${other.id}.` },
            ],
          },
        );
    }
  },
});

function span(booking: { readonly [field: string]: unknown }): [number, number] {
  const start = Date.parse(String(booking.startsAt));
  return [start, start + Number(booking.durationMinutes) * 60_000];
}
