import { z } from 'zod';
import { SwitchboardError } from '../../errors.js';
import { defineResource } from '../define.js';
import { text } from './fields.js';

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
  scopes: {
    read: 'chat.conversations.read',
    write: 'chat.conversations.write',
    describe: {
      read: 'See conversations with the chatbot and who handles them',
      write: 'Open conversations, hand them to a person and close them',
    },
  },
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
