import type { Domain } from 'switchboard-kit';

/** A few clients with orders, messages, conversations and bookings, so every interface has something to show. */
export async function seedDemoData(domain: Domain): Promise<void> {
  const ada = await domain.clients.create({
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    phone: '+44 20 7946 0001',
    city: 'London',
  });
  const grace = await domain.clients.create({
    name: 'Grace Hopper',
    email: 'grace@example.com',
    city: 'New York',
  });
  const alan = await domain.clients.create({
    name: 'Alan Turing',
    email: 'alan@example.com',
    city: 'London',
  });

  const first = await domain.orders.create(ada.id, { total: '129.90', currency: 'EUR' });
  await domain.orders.changeStatus(first.id, { status: 'paid' });
  await domain.orders.changeStatus(first.id, { status: 'shipped' });
  await domain.orders.create(ada.id, { total: '15.00', currency: 'EUR' });
  const second = await domain.orders.create(grace.id, { total: '42.00', currency: 'USD' });
  await domain.orders.changeStatus(second.id, { status: 'paid' });
  await domain.orders.create(alan.id, { total: '7.50', currency: 'GBP' });

  // A conversation the bot handed to a person (its messages in it), one still with the bot, and
  // bookings of a service.
  const conversations = domain.resources.conversation!;
  const handedOff = await conversations.create({
    chatbotId: 'support-bot',
    visitorId: 'visitor-ada',
    clientId: ada.id,
    channel: 'web',
    subject: 'Where is my order?',
  });
  for (const content of ['Hello! Where is my order?', 'It left our warehouse yesterday.', 'Great, thanks!']) {
    await domain.messages.create({
      chatbotId: 'support-bot',
      visitorId: 'visitor-ada',
      content,
      conversationId: handedOff.id,
    });
  }
  await conversations.update(handedOff.id, { status: 'waiting_for_agent' });
  await conversations.update(handedOff.id, { status: 'with_agent', agent: 'Sam from support' });
  await conversations.create({ chatbotId: 'support-bot', visitorId: 'visitor-42', channel: 'whatsapp' });
  const bookings = domain.resources.booking!;
  const fitting = await bookings.create({
    clientId: grace.id,
    service: 'Fitting',
    startsAt: '2027-01-15T10:00:00Z',
    durationMinutes: 45,
  });
  await bookings.update(fitting.id, { status: 'confirmed' });
  await bookings.create({
    clientId: alan.id,
    service: 'Fitting',
    startsAt: '2027-01-15T11:00:00Z',
    durationMinutes: 45,
    notes: 'Prefers mornings',
  });
}
