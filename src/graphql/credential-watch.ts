import type { Authenticate } from '../core/auth.js';
import { isSwitchboardError } from '../core/errors.js';
import type { Logger } from '../core/runtime.js';

export interface CredentialWatch {
  /**
   * Watches the credentials of a long-lived connection: `request` rebuilds the request they came in,
   * `end` closes the connection once they are no longer accepted. Returns a function to stop watching.
   */
  watch(credential: string | null, request: () => Request, end: () => void): () => void;
  /** Checks every watched credential now (rounds otherwise run every `intervalMs`). */
  check(): Promise<void>;
}

export interface CredentialWatchOptions {
  readonly authenticate: Authenticate;
  /** Bound on how long a connection outlives its credentials (expired, revoked). */
  readonly intervalMs: number;
  readonly logger: Logger;
}

/**
 * Re-authenticates the credentials of open connections (WebSocket, event streams) every `intervalMs`,
 * once per distinct credential however many connections share it, and ends the connections of those
 * no longer accepted: an access token that expired or was revoked, a revoked API key. A check that
 * fails for another reason (storage unreachable) keeps the connections and is logged.
 */
export function createCredentialWatch(options: CredentialWatchOptions): CredentialWatch {
  // By credential (the Authorization header); connections without one are watched one by one.
  const watched = new Map<string, { readonly request: () => Request; readonly ends: Set<() => void> }>();
  let anonymous = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<void> | undefined;

  async function round(): Promise<void> {
    for (const [credential, entry] of [...watched]) {
      try {
        await options.authenticate(entry.request());
      } catch (error) {
        if (!isSwitchboardError(error) || (error.code !== 'unauthorized' && error.code !== 'forbidden')) {
          options.logger.log('warn', 'credential check failed; connections kept', { error: String(error) });
          continue;
        }
        if (watched.get(credential) === entry) watched.delete(credential);
        for (const end of entry.ends) end();
      }
    }
  }

  const check = (): Promise<void> => {
    running ??= round().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    watch(credential, request, end) {
      const key = credential ?? `\0${++anonymous}`;
      let entry = watched.get(key);
      if (!entry) {
        entry = { request, ends: new Set() };
        watched.set(key, entry);
      }
      entry.ends.add(end);
      if (timer === undefined) {
        timer = setInterval(() => void check(), options.intervalMs);
        // Where the runtime has it (Node, Bun, Deno): the watch alone does not keep the process alive.
        (timer as { unref?: () => void }).unref?.();
      }
      const current = entry;
      return () => {
        current.ends.delete(end);
        if (current.ends.size === 0 && watched.get(key) === current) watched.delete(key);
        if (watched.size === 0 && timer !== undefined) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    check,
  };
}
