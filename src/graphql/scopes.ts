import type { Scope } from '../core/auth.js';

/**
 * The scope each field needs, in one place: `Type.field` → scope. `createSchema` wraps the resolver of
 * every listed field with a `requireScope` check, so a resolver cannot forget it. Fields a host adds
 * can be listed through `createSchema({ scopes })`.
 *
 * @example
 * createSchema({ typeDefs, resolvers, scopes: { 'Query.invoices': 'billing.invoices.read' } });
 */
export const FIELD_SCOPES: Readonly<Record<string, Scope>> = {
  'Query.client': 'crm.clients.read',
  'Query.clients': 'crm.clients.read',
  'Query.order': 'crm.orders.read',
  'Query.messages': 'chat.messages.read',
  'Client.orders': 'crm.orders.read',
  'Mutation.createClient': 'crm.clients.write',
  'Mutation.updateClient': 'crm.clients.write',
  'Mutation.deleteClient': 'crm.clients.write',
  'Mutation.importClients': 'crm.clients.write',
  'Mutation.updateOrderStatus': 'crm.orders.write',
  'Mutation.sendMessage': 'chat.messages.write',
  'Subscription.onNewMessage': 'chat.messages.read',
};
