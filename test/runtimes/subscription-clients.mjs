// The two ways the runtime smoke suite subscribes, spoken by hand so every runtime runs them with what it
// has: graphql-transport-ws over a WebSocket, and graphql-sse's distinct connections mode (one event
// stream per operation) where the runtime serves no WebSocket (a Worker). Plain JavaScript, as
// smoke-checks.mjs.

/**
 * Polls `value` every 10 ms until it gives something other than undefined or false, and answers it;
 * fails naming `label` (and what `detail` says) after `ms`.
 */
export async function until(label, value, { ms = 10_000, detail = () => '' } = {}) {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await value();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${label}. ${detail()}`.trim());
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Subscribes with graphql-transport-ws: `results()` are the payloads of the `next` messages for the
 * subscription's id. `end()` completes it and closes the socket with 1000, answering the close code the
 * server echoed; given the server's `graphqlWebSocket` (it runs in this process), it also waits until the
 * server lets go of the subscription, then of the socket.
 */
export async function subscribeOverWebSocket({ base, key, query, WebSocket, graphqlWebSocket }) {
  const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  const frames = [];
  let closeCode;
  socket.onmessage = (event) => frames.push(JSON.parse(String(event.data)));
  socket.onclose = (event) => {
    closeCode = event.code;
  };
  const seen = () => `Frames: ${JSON.stringify(frames)}; close code: ${closeCode}.`;
  await until('the socket to open', () => socket.readyState === WebSocket.OPEN || closeCode !== undefined);
  if (closeCode !== undefined) throw new Error(`The socket closed with ${closeCode} before it opened.`);
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } }));
  await until('connection_ack', () => frames.some((f) => f.type === 'connection_ack'), { detail: seen });
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
  return {
    results: () => frames.filter((f) => f.type === 'next' && f.id === '1').map((f) => f.payload),
    seen,
    async end() {
      socket.send(JSON.stringify({ id: '1', type: 'complete' }));
      if (graphqlWebSocket)
        await until(
          'the server to end the subscription',
          () => graphqlWebSocket.subscriptions().subscribers === 0,
        );
      socket.close(1000, 'done');
      const code = await until('the socket to close', () => closeCode);
      if (graphqlWebSocket)
        await until('the server to let go of the socket', () => graphqlWebSocket.sockets() === 0);
      return { closeCode: code };
    },
  };
}

/**
 * Subscribes over Server-Sent Events (graphql-sse, distinct connections mode: `POST /graphql` with
 * `Accept: text/event-stream`): `results()` are the data of the stream's `next` events. The stream opens
 * in the background, so that its caller can post while the server holds back the response headers.
 * `end()` aborts the stream: nothing comes back to tell of it.
 */
export function subscribeOverSse({ base, key, query }) {
  const aborter = new AbortController();
  const results = [];
  let failure;
  const reading = (async () => {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ query }),
      signal: aborter.signal,
    });
    if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
      throw new Error(`No event stream: ${response.status} ${await response.text()}`);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      // Events end with a blank line; comment lines (`:`) are keep-alives.
      for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
        const event = eventOf(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
        if (event.type === 'next') results.push(JSON.parse(event.data));
      }
    }
  })().catch((error) => {
    if (!aborter.signal.aborted) failure = error;
  });
  return {
    results() {
      if (failure) throw failure;
      return results;
    },
    seen: () => `Events: ${JSON.stringify(results)}.`,
    async end() {
      aborter.abort();
      await reading;
      return {};
    },
  };
}

/** One event of a `text/event-stream` (its `event:` and `data:` fields). */
function eventOf(block) {
  const event = { type: 'message', data: '' };
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event.type = line.slice('event:'.length).trim();
    else if (line.startsWith('data:')) data.push(line.slice('data:'.length).replace(/^ /, ''));
  }
  event.data = data.join('\n');
  return event;
}
