/**
 * The script of the GraphiQL page, for the browser: bundled with React and GraphiQL at build time
 * (scripts/graphiql-assets.mjs), never imported by the server. It talks to the path the page was
 * served on: queries and mutations over HTTP, subscriptions over WebSocket (graphql-transport-ws).
 */
import { createGraphiQLFetcher, type Fetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { type DocumentNode, parse } from 'graphql';
import 'graphiql/style.css';
import './page.css';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { repairAccessibility } from './accessible.js';

const DEFAULT_QUERY = `# Switchboard's GraphQL explorer.
#
# Most fields need a credential: give yours in
# the Headers tab below, as
#   { "Authorization": "Bearer <key or token>" }
# Headers stay in this page; the browser does
# not save them.
#
# Write a query (Ctrl-Space completes), run it
# with Ctrl-Enter, e.g.
#   { clients(limit: 5) { id name } }
`;

const url = `${location.origin}${location.pathname}`;
// Subscriptions send the Headers tab as the connection_init payload, which the server authenticates
// like HTTP headers; a socket opens per subscription and closes when it ends.
const toolkit = createGraphiQLFetcher({
  url,
  subscriptionUrl: url.replace(/^http/, 'ws'),
  enableIncrementalDelivery: false,
});
// The toolkit picks WebSocket by the editor's parsed document, which lags behind fast typing (it is
// parsed after a pause): a subscription typed and run at once would go over HTTP and be refused.
const fetcher: Fetcher = (params, options) =>
  toolkit(params, { ...options, documentAST: parsed(params.query) ?? options?.documentAST });

function parsed(query: string): DocumentNode | undefined {
  try {
    return parse(query);
  } catch {
    return undefined;
  }
}

const root = document.getElementById('graphiql');
if (root) {
  repairAccessibility(root);
  createRoot(root).render(
    createElement(
      GraphiQL,
      {
        fetcher,
        defaultQuery: DEFAULT_QUERY,
        defaultEditorToolsVisibility: 'headers',
        shouldPersistHeaders: false,
      },
      createElement(GraphiQL.Logo, null, 'Switchboard'),
    ),
  );
}
