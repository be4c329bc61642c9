import { defineResource } from '../define.js';
import { email, phone, text } from './fields.js';

/**
 * A customer of the business. A client who can sign in is also a *user* (the OAuth resource owner),
 * who sees their own client record only. Deleting a client deletes what it owns (its orders …).
 */
export const clients = defineResource({
  name: 'client',
  idPrefix: 'cli',
  description: 'A customer of the business.',
  fields: {
    name: text(200),
    email: email.meta({
      format: 'email',
      description: 'Stored trimmed and lower-cased; unique across clients.',
    }),
    phone: phone.nullable(),
    city: text(100).nullable(),
  },
  owner: 'id',
  unique: ['email'],
  filters: ['city', 'email'],
  search: { name: 'name' },
  scopes: {
    read: 'crm.clients.read',
    write: 'crm.clients.write',
    describe: { read: 'See clients: names, e-mail addresses, phone numbers and cities' },
  },
  graphql: {
    descriptions: {
      client: 'The client, or null when it does not exist or is not visible to the caller.',
      clients:
        'Clients, oldest first. limit defaults to 20 and may be at most 100 (both configurable); a larger one is an error.',
      deleteClient: 'True when the client was deleted (with its orders).',
    },
  },
});
