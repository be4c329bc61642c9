import { bookings, type Client, type Domain, isSwitchboardError } from 'switchboard-kit';

/**
 * A few clients with orders, messages, conversations and bookings, so every interface has something to
 * show. Once per database, however many instances seed it and whenever they start: a client is keyed
 * by its e-mail (unique), and what belongs to it is made by the instance whose create of that client
 * succeeded; an instance that finds the client there (one before, or a concurrent create refused with a
 * conflict) leaves it and its records alone.
 */
export async function seedDemoData(domain: Domain): Promise<void> {
  await withClient(
    domain,
    { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0001', city: 'London' },
    async (ada) => {
      const first = await domain.orders.create({ clientId: ada.id, total: '129.90', currency: 'EUR' });
      await domain.orders.update(first.id, { status: 'paid' });
      await domain.orders.update(first.id, { status: 'shipped' });
      await domain.orders.create({ clientId: ada.id, total: '15.00', currency: 'EUR' });
      // A conversation the bot handed to a person, its messages in it.
      const handedOff = await domain.conversations.create({
        chatbotId: 'support-bot',
        visitorId: 'visitor-ada',
        clientId: ada.id,
        channel: 'web',
        subject: 'Where is my order?',
      });
      for (const content of [
        'Hello! Where is my order?',
        'It left our warehouse yesterday.',
        'Great, thanks!',
      ]) {
        await domain.messages.create({
          chatbotId: 'support-bot',
          visitorId: 'visitor-ada',
          content,
          conversationId: handedOff.id,
        });
      }
      await domain.conversations.update(handedOff.id, { status: 'waiting_for_agent' });
      await domain.conversations.update(handedOff.id, { status: 'with_agent', agent: 'Sam from support' });
    },
  );
  await withClient(
    domain,
    { name: 'Grace Hopper', email: 'grace@example.com', city: 'New York' },
    async (grace) => {
      const order = await domain.orders.create({ clientId: grace.id, total: '42.00', currency: 'USD' });
      await domain.orders.update(order.id, { status: 'paid' });
      const fitting = await domain.of(bookings).create({
        clientId: grace.id,
        service: 'Fitting',
        startsAt: '2027-01-15T10:00:00Z',
        durationMinutes: 45,
      });
      await domain.of(bookings).update(fitting.id, { status: 'confirmed' });
    },
  );
  await withClient(
    domain,
    { name: 'Alan Turing', email: 'alan@example.com', city: 'London' },
    async (alan) => {
      await domain.orders.create({ clientId: alan.id, total: '7.50', currency: 'GBP' });
      await domain.of(bookings).create({
        clientId: alan.id,
        service: 'Fitting',
        startsAt: '2027-01-15T11:00:00Z',
        durationMinutes: 45,
        notes: 'Prefers mornings',
      });
      // A conversation still with the bot, of a visitor who is no client: it goes with the last client.
      await domain.conversations.create({
        chatbotId: 'support-bot',
        visitorId: 'visitor-42',
        channel: 'whatsapp',
      });
    },
  );
}

/** Creates the client and then its records, unless the client exists already (then nothing). */
async function withClient(
  domain: Domain,
  input: { readonly name: string; readonly email: string; readonly phone?: string; readonly city: string },
  records: (client: Client) => Promise<void>,
): Promise<void> {
  let client: Client;
  try {
    client = await domain.clients.create(input);
  } catch (error) {
    if (isSwitchboardError(error) && error.code === 'conflict') return;
    throw error;
  }
  await records(client);
}
