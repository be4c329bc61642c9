import { SwitchboardError } from '../../errors.js';
import type { ResourceRecord } from '../../storage/index.js';
import { defineResource } from '../define.js';
import type { Related } from '../input.js';
import { text } from './fields.js';

/**
 * One chat message between a visitor and a chatbot, written once. It belongs to a conversation: one
 * sent without `conversationId` joins the visitor's open conversation with that chatbot, or starts one.
 */
export const messages = defineResource({
  name: 'message',
  idPrefix: 'msg',
  description: 'One chat message between a visitor and a chatbot.',
  fields: {
    chatbotId: text(100).meta({ description: 'The conversation source; subscribers select messages by it.' }),
    visitorId: text(100),
    content: text(4000),
    conversationId: text(100).optional(),
  },
  changes: false,
  relations: { conversationId: 'conversation' },
  // Whose message it is: its conversation's client's (a signed-in user sees only their own).
  owner: 'conversationId',
  subject: 'conversationId',
  groupedBy: { chatbotId: 'chatbots' },
  filters: ['visitorId'],
  scopes: {
    read: 'chat.messages.read',
    write: 'chat.messages.write',
    describe: { read: 'Read chat messages and receive new ones as they arrive', write: 'Send chat messages' },
  },
  prepare: joinConversation,
  graphql: {
    create: 'sendMessage',
    createInput: 'SendMessageInput',
    onCreated: 'onNewMessage',
    aliases: { visitor_id: 'visitorId' },
    descriptions: {
      messages:
        'A conversation: messages of one chatbot (optionally one visitor), oldest first. limit as for clients.',
      onNewMessage: 'Every new message of the chatbot, as it is created.',
    },
  },
});

async function joinConversation(message: ResourceRecord, related: Related): Promise<ResourceRecord> {
  const { chatbotId, visitorId, conversationId } = message;
  if (typeof conversationId === 'string') {
    const conversation = (await related.get('conversation', conversationId))!;
    if (conversation.chatbotId !== chatbotId || conversation.visitorId !== visitorId)
      throw new SwitchboardError(
        'validation_failed',
        `The input is not valid: conversation ${conversationId} is not between this chatbot and visitor.`,
        {
          details: [
            {
              field: 'conversationId',
              code: 'invalid',
              message: 'The conversation is with another chatbot or visitor.',
            },
          ],
        },
      );
    if (conversation.status === 'closed')
      throw new SwitchboardError('conflict', `Conversation ${conversationId} is closed.`, {
        details: [{ field: 'conversationId', code: 'closed', message: 'The conversation is closed.' }],
      });
    return message;
  }
  const open = (
    await related.find('conversation', {
      chatbotId: String(chatbotId),
      visitorId: String(visitorId),
      status: ['open', 'waiting_for_agent', 'with_agent'],
    })
  ).at(-1);
  const conversation =
    open ?? (await related.create('conversation', { chatbotId, visitorId, channel: 'web' }));
  return { ...message, conversationId: conversation.id };
}
