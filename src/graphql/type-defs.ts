/**
 * The built-in schema (spec section 4.1). It only ever grows: add types, fields and optional arguments;
 * never remove, rename or tighten one (spec section 9). Deprecate with `@deprecated` instead.
 */
export const typeDefs = /* GraphQL */ `
  "An ISO-8601 date and time in UTC, e.g. 2026-01-31T09:30:00.000Z."
  scalar DateTime

  "A file sent as a part of a GraphQL multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec)."
  scalar Upload

  "The life of an order: PENDING → PAID → SHIPPED → DELIVERED; CANCELLED and REFUNDED are final."
  enum OrderStatus {
    PENDING
    PAID
    SHIPPED
    DELIVERED
    CANCELLED
    REFUNDED
  }

  "A customer of the business."
  type Client {
    id: ID!
    name: String!
    "Stored trimmed and lower-cased; unique across clients."
    email: String!
    phone: String
    city: String
    """
    The client's orders, oldest first, optionally only those with one status, at most \`limit\` of them
    (1 to the server's list limit; all when omitted). Needs crm.orders.read.
    """
    orders(status: OrderStatus, limit: Int): [Order!]!
    createdAt: DateTime!
    updatedAt: DateTime!
  }

  type Order {
    id: ID!
    status: OrderStatus!
    "Exact decimal amount as text, e.g. \\"129.90\\"."
    total: String!
    "ISO 4217 code, e.g. EUR."
    currency: String!
    clientId: ID!
    createdAt: DateTime!
    updatedAt: DateTime!
  }

  "One chat message between a visitor and a chatbot."
  type Message {
    id: ID!
    chatbotId: String!
    content: String!
    timestamp: DateTime!
    visitor_id: String!
  }

  input CreateClientInput {
    name: String!
    email: String!
    phone: String
    city: String
  }

  "Only the fields sent change; null clears phone or city."
  input UpdateClientInput {
    name: String
    email: String
    phone: String
    city: String
  }

  input SendMessageInput {
    chatbotId: String!
    visitorId: String!
    content: String!
  }

  "A CSV row that was not imported."
  type RejectedRow {
    "1-based line number in the file, the header being line 1."
    line: Int!
    "Machine-readable reason, e.g. validation_failed or conflict."
    code: String!
    message: String!
  }

  type ImportClientsResult {
    created: [Client!]!
    rejected: [RejectedRow!]!
  }

  type Query {
    "The client, or null when it does not exist or is not visible to the caller."
    client(id: ID!): Client
    "Clients, oldest first. limit defaults to 20 and may be at most 100 (both configurable); a larger one is an error."
    clients(limit: Int, offset: Int = 0): [Client!]!
    "The order, or null when it does not exist or is not visible to the caller."
    order(id: ID!): Order
    "A conversation: messages of one chatbot (optionally one visitor), oldest first. limit as for clients."
    messages(chatbotId: String!, visitorId: String, limit: Int, offset: Int = 0): [Message!]!
  }

  type Mutation {
    createClient(input: CreateClientInput!): Client!
    updateClient(id: ID!, input: UpdateClientInput!): Client!
    "True when the client was deleted (with its orders)."
    deleteClient(id: ID!): Boolean!
    "Moves an order along its life cycle; an illegal move is a conflict error."
    updateOrderStatus(id: ID!, status: OrderStatus!): Order!
    sendMessage(input: SendMessageInput!): Message!
    "Creates clients from a CSV file with the header name,email[,phone][,city]."
    importClients(file: Upload!): ImportClientsResult!
  }

  type Subscription {
    "Every new message of the chatbot, as it is created."
    onNewMessage(chatbotId: String!): Message!
  }
`;
