/**
 * Records every customer-service integration has, declared like a host's own: conversations that a
 * bot hands off to a person, and bookings of a service. `createSwitchboard` serves them by default.
 */
import { z } from 'zod';
import { SwitchboardError } from '../errors.js';
import { defineResource } from './define.js';

const text = (max: number) => z.string().trim().min(1).max(max);

/**
 * A conversation between a visitor and a chatbot, which the bot can hand to a person:
 * `open → waiting_for_agent → with_agent → closed` (a bot can also close it directly).
 */
export const conversations = defineResource({
  name: 'conversation',
  idPrefix: 'cnv',
  description: 'A conversation of a visitor with a chatbot, which the bot can hand off to a person.',
  fields: {
    chatbotId: text(100),
    visitorId: text(100),
    clientId: z.string().optional(),
    channel: z.enum(['web', 'whatsapp', 'sms', 'email', 'phone', 'other']),
    subject: text(200).optional(),
    // Who took the conversation over; set with the move to with_agent.
    agent: text(200).optional(),
  },
  immutable: ['chatbotId', 'visitorId', 'channel'],
  relations: { clientId: 'client' },
  owner: 'clientId',
  filters: ['chatbotId', 'visitorId', 'channel'],
  lifecycle: {
    field: 'status',
    initial: 'open',
    states: {
      open: { to: ['waiting_for_agent', 'closed'] },
      waiting_for_agent: { to: ['with_agent', 'closed'], event: 'conversation.handoff_requested' },
      with_agent: { to: ['closed'], event: 'conversation.handoff_completed' },
      closed: { to: [] },
    },
  },
  scopes: { read: 'chat.conversations.read', write: 'chat.conversations.write' },
  async check(conversation) {
    if (conversation.status === 'with_agent' && !conversation.agent)
      throw new SwitchboardError(
        'validation_failed',
        'The input is not valid: name the agent who takes over.',
        {
          details: [
            { field: 'agent', code: 'required', message: 'agent is required to hand the conversation over.' },
          ],
        },
      );
  },
});

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
  scopes: { read: 'calendar.bookings.read', write: 'calendar.bookings.write' },
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

/** The resources `createSwitchboard` serves unless told otherwise. */
export const BUILT_IN_RESOURCES = [conversations, bookings] as const;
