/**
 * The GraphiQL page a browser gets on GET /graphql. Assets come from a CDN at pinned versions; the
 * page talks to the same path over HTTP.
 */
export function graphiqlPage(options: { title: string }): string {
  const title = options.title.replace(/[<>&"]/g, '');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="https://unpkg.com/graphiql@3.8.3/graphiql.min.css">
<style>html,body,#graphiql{height:100%;margin:0}</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script crossorigin src="https://unpkg.com/react@18.3.1/umd/react.production.min.js"></script>
<script crossorigin src="https://unpkg.com/react-dom@18.3.1/umd/react-dom.production.min.js"></script>
<script crossorigin src="https://unpkg.com/graphiql@3.8.3/graphiql.min.js"></script>
<script>
  const url = location.origin + location.pathname;
  const fetcher = GraphiQL.createFetcher({ url });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, { fetcher }));
</script>
</body>
</html>`;
}
