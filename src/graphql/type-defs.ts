/**
 * The schema around the records (spec section 4.1): scalars, the CSV import of clients, and the root
 * types the resources extend (resources.ts makes their types, queries, mutations and subscriptions
 * from their declarations). It only ever grows: add types, fields and optional arguments; never
 * remove, rename or tighten one (spec section 9). Deprecate with `@deprecated` instead.
 */
export const typeDefs = /* GraphQL */ `
  "An ISO-8601 date and time in UTC, e.g. 2026-01-31T09:30:00.000Z."
  scalar DateTime

  "A file sent as a part of a GraphQL multipart request (https://github.com/jaydenseric/graphql-multipart-request-spec)."
  scalar Upload

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

  type Query

  type Mutation {
    "Creates clients from a CSV file with the header name,email[,phone][,city]."
    importClients(file: Upload!): ImportClientsResult!
  }

  type Subscription
`;
