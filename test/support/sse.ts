/**
 * A Server-Sent Events reader over fetch's body, as a browser's EventSource parses it (WHATWG HTML
 * §9.2.6): frames end at a blank line, `id:` and `data:` fields, comment lines ignored.
 */
export interface SseFrame {
  readonly id: string | undefined;
  readonly data: string;
}

/** The frames of an event stream response, as they arrive; ends when the stream does. */
export async function* sseFrames(response: Response): AsyncGenerator<SseFrame> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replaceAll('\r\n', '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id: string | undefined;
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') id = text;
          if (field === 'data') data.push(text);
        }
        if (data.length > 0) yield { id, data: data.join('\n') };
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
