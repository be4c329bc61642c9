import { z } from 'zod';
import type { Message } from '../../core/records.js';
import { MessageCreateInput } from '../../core/validation.js';
import { PAGE_HEADERS, pageQuery, paginated, rangeOf } from '../../http/pagination.js';
import { created, json } from '../../http/responses.js';
import { type AnyRoute, defineRoute } from '../../http/route.js';
import { ProblemSchema, pageOf } from '../../http/schemas.js';
import { MessageSchema } from '../schemas.js';
import type { ResourceRouteOptions } from './context.js';

const problem = (description: string) => ({ description, schema: ProblemSchema, name: 'Problem' });
const chatbotParams = z.object({ chatbot_id: z.string().min(1).max(100) });

/**
 * Conversations: the messages of a chatbot (optionally of one visitor), oldest first, and sending one.
 * Messages are organisation data: the scope decides, not the user.
 */
export function messageRoutes(options: ResourceRouteOptions): AnyRoute[] {
  const { domain } = options;
  const tags = ['Messages'];
  return [
    defineRoute({
      method: 'GET',
      path: '/chatbots/{chatbot_id}/messages',
      operationId: 'listMessages',
      summary: 'List the messages of a conversation',
      tags,
      scope: 'chat.messages.read',
      params: chatbotParams,
      query: pageQuery(options.limits).extend({
        visitorId: z.string().optional().meta({ description: 'Only the conversation with this visitor' }),
      }),
      responses: {
        200: {
          description: 'A page of messages, oldest first',
          schema: pageOf(MessageSchema),
          name: 'MessagePage',
          headers: PAGE_HEADERS,
        },
        400: problem('A query parameter is not valid'),
      },
      async handle({ params, query, url }) {
        const filter = { chatbotId: params.chatbot_id, visitorId: query.visitorId };
        return paginated(await domain.messages.list(filter, rangeOf(query)), query, url);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/chatbots/{chatbot_id}/messages',
      operationId: 'createMessage',
      summary: 'Send a message',
      description: 'Publishes `message.created`, which GraphQL `onNewMessage` subscribers receive.',
      tags,
      scope: 'chat.messages.write',
      params: chatbotParams,
      body: { schema: MessageCreateInput.omit({ chatbotId: true }), name: 'MessageCreate' },
      responses: {
        201: {
          description: 'Created',
          schema: MessageSchema,
          name: 'Message',
          headers: { Location: 'URL of the message' },
        },
        422: problem('A field is not valid'),
      },
      async handle({ params, body, basePath, idempotent }) {
        const respond = (message: Message) =>
          created(message, `${basePath}/messages/${encodeURIComponent(message.id)}`);
        return respond(
          await domain.messages.create({ ...body, chatbotId: params.chatbot_id }, idempotent(respond)),
        );
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/messages/{id}',
      operationId: 'getMessage',
      summary: 'Get a message',
      tags,
      scope: 'chat.messages.read',
      params: z.object({ id: z.string().min(1) }),
      responses: {
        200: { description: 'The message', schema: MessageSchema, name: 'Message' },
        304: { description: 'Not modified' },
        404: problem('No such message'),
      },
      async handle({ params }) {
        return json(await domain.messages.get(params.id));
      },
    }),
  ];
}
