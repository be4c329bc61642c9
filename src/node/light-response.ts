/**
 * A Web `Response` that is only its status, header record and text until something asks for more.
 * Handlers answer with `new Response(text, { status, headers })` on every request; building undici's
 * for each costs more than a fast route's own work, and node:http needs none of it: the listener writes
 * the three parts straight to the `ServerResponse`. Anything else asked of it (its `Headers`, its body
 * stream, `clone()`…) builds undici's once, as @hono/node-server's does. It passes `instanceof Response`.
 */
import { replaceGlobal, standInFor } from './stand-in.js';

/** What a light response holds until it is built: what node:http writes. */
export interface RawResponse {
  readonly status: number;
  readonly statusText: string;
  /** Lower- or mixed-case names, string values, as the handler gave them. */
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly body: string | Uint8Array | null;
}

const RAW = Symbol('raw');
/** Statuses that have no body (Fetch's "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The parts of a light response not yet built into undici's, or undefined (write it as any Response). */
export function rawOf(response: Response): RawResponse | undefined {
  return (response as { [RAW]?: RawResponse })[RAW];
}

/**
 * The light `Response` class over `Real` (undici's): made by {@link installLightResponse}, never at
 * module scope.
 */
function lightResponseOver(Real: typeof Response): typeof Response {
  class LightResponse {
    [RAW]: RawResponse | undefined;
    #real: Response | undefined;

    constructor(body?: BodyInit | null, init?: ResponseInit) {
      const headers = init?.headers;
      if (
        (body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array) &&
        (headers === undefined || isRecord(headers))
      ) {
        const status = init?.status ?? 200;
        // The checks undici makes, so a bad status fails where it is made, as it would there.
        if (!Number.isInteger(status) || status < 200 || status > 599)
          throw new RangeError(`init["status"] must be in the range of 200 to 599, inclusive.`);
        if (body !== undefined && body !== null && NULL_BODY.has(status))
          throw new TypeError(`Response constructor: Invalid response status code ${status}`);
        this[RAW] = {
          status,
          statusText: init?.statusText ?? '',
          headers: headers as Record<string, string> | undefined,
          body: body ?? null,
        };
      } else {
        this.#real = new Real(body, init);
      }
    }

    get status(): number {
      return this[RAW]?.status ?? this.real().status;
    }

    get ok(): boolean {
      const status = this.status;
      return status >= 200 && status < 300;
    }

    get statusText(): string {
      return this[RAW]?.statusText ?? this.real().statusText;
    }

    /** undici's response for this one, built once; from then on it is the only one written. */
    real(): Response {
      if (!this.#real) {
        const raw = this[RAW]!;
        this.#real = new Real(raw.body as BodyInit | null, {
          status: raw.status,
          statusText: raw.statusText,
          ...(raw.headers ? { headers: raw.headers } : {}),
        });
        this[RAW] = undefined;
      }
      return this.#real;
    }
  }
  // Every other field of a Response (`headers`, `body`, `text()`, `clone()`…) is undici's.
  standInFor(LightResponse, Real, (self: LightResponse) => self.real());
  // `Response.json()`, `Response.redirect()`, `Response.error()`: undici's own.
  Object.setPrototypeOf(LightResponse, Real);
  return LightResponse as unknown as typeof Response;
}

function isRecord(headers: HeadersInit): headers is Record<string, string> {
  return typeof headers === 'object' && Object.getPrototypeOf(headers) === Object.prototype;
}

/**
 * Makes the global `Response` the light one, once per process (the Node adapter does when it starts
 * serving, unless told not to): handlers see no difference, and an answer of text costs no undici
 * object.
 */
export function installLightResponse(): void {
  replaceGlobal('Response', lightResponseOver);
}
