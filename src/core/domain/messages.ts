import type { Message, Page } from '../records.js';
import { isoAt } from '../runtime.js';
import type { MessageFilter, Range } from '../storage/index.js';
import { MessageCreateInput, validate } from '../validation.js';
import { type CreateOptions, commit, type DomainContext, newEvent, notFound } from './context.js';

/** Records and reads chat messages; a new message publishes `message.created` in the same transaction. */
export interface MessageService {
  /** Records a chat message; publishes `message.created` (what `onNewMessage` subscribers receive). */
  create(input: unknown, options?: CreateOptions<Message>): Promise<Message>;
  get(id: string): Promise<Message>;
  /** A conversation: messages of one chatbot, optionally of one visitor, oldest first. */
  list(filter: MessageFilter, range: Range): Promise<Page<Message>>;
}

export function messageService(ctx: DomainContext): MessageService {
  return {
    async create(input, options = {}) {
      const fields = validate(MessageCreateInput, input);
      const message: Message = { id: ctx.ids('msg'), ...fields, timestamp: isoAt(ctx.clock.now()) };
      return commit(ctx, async (tx) => {
        await tx.messages.insert(message);
        await tx.outbox.append(newEvent(ctx, 'message.created', { ...message }));
        await options.within?.(tx, message);
        return message;
      });
    },
    async get(id) {
      const message = await ctx.storage.messages.get(id);
      if (!message) throw notFound('message', id);
      return message;
    },
    list: (filter, range) => ctx.storage.messages.list(filter, range),
  };
}
