/**
 * A Web `Request` seen through node:http's `IncomingMessage`, built for every request on the Node hot
 * path instead of undici's: its method, URL and header reads come straight from the message, and its
 * body is read from the socket by `arrayBuffer()`/`text()`/`json()`. Anything else a handler asks of it
 * (a body stream, a signal, `clone()`, `formData()`…) builds undici's `Request` once (as `toWebRequest` does)
 * and answers from that, so handlers see no difference. It passes `instanceof Request`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONNECTION } from '../internal/connection.js';
import { bodyWasRead } from './consumed-body.js';
import { webRequestOf } from './convert.js';
import { realGlobal, replaceGlobal, standInFor } from './stand-in.js';

/**
 * Names node:http keeps one value of when a request repeats them (the first); a Web `Headers` joins
 * every value with `, `, so the view reads these from the raw headers when they repeat.
 */
const KEPT_ONCE = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
  // node:http joins cookies with `; `, a Web `Headers` with `, `.
  'cookie',
]);

/** A request's header fields as a Web `Headers`, read from the message until something changes them. */
class HeadersView implements Headers {
  #copy: Headers | undefined;

  constructor(private readonly incoming: IncomingMessage) {}

  get(name: string): string | null {
    if (this.#copy) return this.#copy.get(name);
    const key = name.toLowerCase();
    const value = this.incoming.headers[key];
    if (value === undefined) return null;
    if (typeof value !== 'string') return value.join(', ');
    return KEPT_ONCE.has(key) ? joinedRaw(this.incoming.rawHeaders, key, value) : value;
  }

  has(name: string): boolean {
    return this.#copy ? this.#copy.has(name) : this.incoming.headers[name.toLowerCase()] !== undefined;
  }

  getSetCookie(): string[] {
    return this.headers().getSetCookie();
  }

  set(name: string, value: string): void {
    this.headers().set(name, value);
  }

  append(name: string, value: string): void {
    this.headers().append(name, value);
  }

  delete(name: string): void {
    this.headers().delete(name);
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.headers().forEach((value, key) => {
      callback.call(thisArg, value, key, this);
    });
  }

  entries(): HeadersIterator<[string, string]> {
    return this.headers().entries();
  }

  keys(): HeadersIterator<string> {
    return this.headers().keys();
  }

  values(): HeadersIterator<string> {
    return this.headers().values();
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.headers()[Symbol.iterator]();
  }

  /** Every field as a Web `Headers` (each value as the client sent it): made once, then used alone. */
  headers(): Headers {
    if (!this.#copy) {
      const headers = new Headers();
      const raw = this.incoming.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
      this.#copy = headers;
    }
    return this.#copy;
  }
}

// `instanceof Headers` holds, as for undici's (every method above answers it).
Object.setPrototypeOf(HeadersView.prototype, Headers.prototype);

/** The value of a field node:http kept once, joined as a Web `Headers` would if the client repeated it. */
function joinedRaw(raw: readonly string[], key: string, first: string): string {
  let values: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== key.length || name.toLowerCase() !== key) continue;
    if (values) values.push(raw[i + 1]!);
    else values = [raw[i + 1]!];
  }
  return values && values.length > 1 ? values.join(', ') : first;
}

const UNREAD = Symbol('unread');
// Stateless between whole-buffer decodes, so one serves every request (as undici's `text()`: U+FFFD for
// malformed bytes, a BOM dropped).
const utf8 = new TextDecoder();

/**
 * The method a view answers its undici `Request` by, under a registry symbol so the global `Request`
 * another copy of the library installed takes this copy's views too.
 */
const WEB = Symbol.for('switchboard-kit.node.web-request');

/** The fields of a `Request` the view answers itself; every other one is undici's, built on first use. */
class NodeRequest {
  #headers: HeadersView | undefined;
  #web: Request | undefined;
  #read: Promise<Uint8Array> | typeof UNREAD = UNREAD;

  constructor(
    readonly incoming: IncomingMessage,
    readonly outgoing: ServerResponse,
    readonly url: string,
  ) {}

  get method(): string {
    return this.incoming.method ?? 'GET';
  }

  get headers(): Headers {
    if (this.#web) return this.#web.headers;
    this.#headers ??= new HeadersView(this.incoming);
    return this.#headers;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.bytes().then((bytes) =>
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
        ? (bytes.buffer as ArrayBuffer)
        : (bytes.slice().buffer as ArrayBuffer),
    );
  }

  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#web || bodyWasRead(this.incoming))
      return this.web()
        .arrayBuffer()
        .then((buffer) => new Uint8Array(buffer));
    if (this.#read !== UNREAD)
      return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
    this.#read = readMessage(this.incoming);
    return this.#read as Promise<Uint8Array<ArrayBuffer>>;
  }

  text(): Promise<string> {
    return this.bytes().then((bytes) => utf8.decode(bytes));
  }

  json(): Promise<unknown> {
    return this.text().then((text) => JSON.parse(text));
  }

  /** The socket, for memos that hold for a connection's requests (internal/connection.ts). */
  get [CONNECTION](): object {
    return this.incoming.socket;
  }

  get bodyUsed(): boolean {
    return this.#web ? this.#web.bodyUsed : this.#read !== UNREAD;
  }

  [WEB](): Request {
    return this.web();
  }

  /** undici's `Request` for this one, built once: what every other field reads. */
  web(): Request {
    if (!this.#web) {
      if (this.#read !== UNREAD) throw new TypeError('Body is unusable: Body has already been read');
      this.#web = webRequestOf(this.incoming, this.outgoing, originOf(this.url), this.#headers?.headers());
    }
    return this.#web;
  }
}

// Everything else a Request has, from undici's: `body`, `signal`, `clone()`, `formData()`, `cache`…
standInFor(NodeRequest, realGlobal('Request'), (self: NodeRequest) => self.web());

/**
 * Reads a message's body from the socket into one buffer (its framing ends it; limits are the caller's).
 * Listeners, not `node:stream/consumers`' `buffer()`: its async iteration made a create cost about a
 * third more over the wire (1.10–1.14× Hono against 1.50–1.59×).
 */
function readMessage(incoming: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    incoming.once('error', reject);
    incoming.once('aborted', () => reject(new TypeError('The client went away before sending its body.')));
  });
}

/** `http://host:port` of a full URL. */
export function originOf(url: string): string {
  return url.slice(0, url.indexOf('/', url.indexOf('//') + 2));
}

/**
 * Makes the global `Request` one that takes a view as its input (`new Request(request, { headers })`,
 * as a handler re-targeting the request it was given does), by building undici's from it first;
 * otherwise it is undici's, and `instanceof` holds for undici's requests and views alike. Once per
 * process, when the Node adapter starts serving with `overrideGlobals`.
 */
export function installRequestOfViews(): void {
  replaceGlobal('Request', requestOfViews);
}

function requestOfViews(Real: typeof Request): typeof Request {
  class RequestOfViews extends Real {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      const web = (input as { [WEB]?: () => Request })[WEB];
      super(typeof web === 'function' ? web.call(input) : input, init);
    }
  }
  // undici's requests are instances too; a host's subclass of the global keeps the plain check.
  Object.defineProperty(RequestOfViews, Symbol.hasInstance, {
    value(this: typeof Request, instance: unknown): boolean {
      return this === RequestOfViews
        ? instance instanceof Real
        : Function.prototype[Symbol.hasInstance].call(this, instance);
    },
  });
  return RequestOfViews;
}

/**
 * The request a node:http message makes, as a Web `Request`: `url` is the full URL (origin and
 * target) the caller worked out.
 */
export function requestView(incoming: IncomingMessage, outgoing: ServerResponse, url: string): Request {
  return new NodeRequest(incoming, outgoing, url) as unknown as Request;
}
