import { SwitchboardError } from '../../core/errors.js';

/** One data row of a CSV file: its 1-based line number and its fields by header name. */
export interface CsvRow {
  readonly line: number;
  readonly fields: Readonly<Record<string, string>>;
}

/**
 * Reads CSV rows (RFC 4180: quoted fields, doubled quotes, CRLF or LF) from a byte stream, one row at a
 * time, so a large file is never held whole in memory. The first line is the header.
 */
export async function* readCsvRows(
  stream: ReadableStream<Uint8Array>,
  options: { maxRows: number },
): AsyncGenerator<CsvRow> {
  let header: string[] | null = null;
  let rows = 0;
  for await (const { line, cells } of records(stream)) {
    if (cells.length === 1 && cells[0] === '') continue;
    if (!header) {
      header = cells.map((cell) => cell.trim().toLowerCase());
      continue;
    }
    if (++rows > options.maxRows)
      throw new SwitchboardError('payload_too_large', `The file has more than ${options.maxRows} rows.`);
    const fields: Record<string, string> = {};
    header.forEach((name, i) => {
      const value = cells[i]?.trim();
      if (name && value) fields[name] = value;
    });
    yield { line, fields };
  }
}

async function* records(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<{ line: number; cells: string[] }> {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let start = 1;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (let i = 0; i < text.length; i++) {
        const ch = text[i];
        if (quoted) {
          if (ch === '"') {
            quoted = false;
            afterQuote = true;
          } else {
            if (ch === '\n') line++;
            cell += ch;
          }
        } else if (ch === '"') {
          if (afterQuote) cell += '"';
          quoted = true;
          afterQuote = false;
        } else if (ch === ',') {
          cells.push(cell);
          cell = '';
          afterQuote = false;
        } else if (ch === '\n') {
          cells.push(cell.endsWith('\r') ? cell.slice(0, -1) : cell);
          yield { line: start, cells };
          cells = [];
          cell = '';
          afterQuote = false;
          start = ++line;
        } else {
          cell += ch;
          afterQuote = false;
        }
      }
      if (done) break;
    }
    if (cell !== '' || cells.length) yield { line: start, cells: [...cells, cell] };
  } finally {
    reader.releaseLock();
  }
}
