import type { Message, Page } from '../records.js';
import type { ResourceService } from '../resources/service.js';
import type { MessageFilter, Range } from '../storage/index.js';
import type { CreateOptions } from './context.js';

/** Chat messages, as the declared `message` resource's service records and reads them, typed. */
export interface MessageService {
  /**
   * Records a chat message in its conversation (the visitor's open one with the chatbot, or a new one);
   * publishes `message.created` (what `onNewMessage` subscribers receive).
   */
  create(input: unknown, options?: CreateOptions<Message>): Promise<Message>;
  get(id: string): Promise<Message>;
  /** A conversation: messages of one chatbot, optionally of one visitor, oldest first. */
  list(filter: MessageFilter, range: Range): Promise<Page<Message>>;
}

export function messageService(service: ResourceService): MessageService {
  const typed = service as unknown as MessageService & ResourceService;
  return {
    create: typed.create,
    get: typed.get,
    list: (filter, range) =>
      typed.list({
        where: {
          chatbotId: filter.chatbotId,
          ...(filter.visitorId !== undefined ? { visitorId: filter.visitorId } : {}),
        },
        range,
      }) as unknown as Promise<Page<Message>>,
  };
}
