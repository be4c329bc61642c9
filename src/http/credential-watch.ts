import type { Authenticate } from '../core/auth.js';
import { isSwitchboardError } from '../core/errors.js';
import type { Logger } from '../core/runtime.js';

/** A long-lived connection whose credentials are watched. */
export interface Watched {
  /** Rebuilds the request its credentials came in. */
  request(): Request;
  /** Ends the connection: its credentials are no longer accepted. */
  revoked(): void;
}

export interface CredentialWatch {
  /**
   * Watches a connection's credentials until `unwatch`: `credential` is what connections that share
   * them have in common (their `Authorization` header, a console session's id).
   */
  watch(credential: string | null, connection: Watched): void;
  unwatch(credential: string | null, connection: Watched): void;
  /** Ends the connections of a credential at once, without waiting for a check: it was signed out. */
  end(credential: string): void;
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
  // By credential (the Authorization header); connections without one are checked one by one.
  const watched = new Map<string, Set<Watched>>();
  const alone = new Set<Watched>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<void> | undefined;

  async function accepted(connection: Watched): Promise<boolean> {
    try {
      await options.authenticate(connection.request());
      return true;
    } catch (error) {
      if (isSwitchboardError(error) && (error.code === 'unauthorized' || error.code === 'forbidden'))
        return false;
      options.logger.log('warn', 'credential check failed; connections kept', { error: String(error) });
      return true;
    }
  }

  function end(credential: string): void {
    const connections = watched.get(credential);
    watched.delete(credential);
    for (const connection of connections ?? []) connection.revoked();
  }

  async function round(): Promise<void> {
    for (const [credential, connections] of [...watched]) {
      const [first] = connections;
      if (!first || (await accepted(first))) continue;
      end(credential);
    }
    for (const connection of [...alone]) {
      if (await accepted(connection)) continue;
      alone.delete(connection);
      connection.revoked();
    }
    stopIfIdle();
  }

  const stopIfIdle = (): void => {
    if (watched.size > 0 || alone.size > 0 || timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
  };

  const check = (): Promise<void> => {
    running ??= round().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    watch(credential, connection) {
      if (credential === null) alone.add(connection);
      else {
        let connections = watched.get(credential);
        if (!connections) {
          connections = new Set();
          watched.set(credential, connections);
        }
        connections.add(connection);
      }
      if (timer === undefined) {
        timer = setInterval(() => void check(), options.intervalMs);
        // Where the runtime has it (Node, Bun, Deno): the watch alone does not keep the process alive.
        (timer as { unref?: () => void }).unref?.();
      }
    },
    unwatch(credential, connection) {
      if (credential === null) alone.delete(connection);
      else {
        const connections = watched.get(credential);
        connections?.delete(connection);
        if (connections?.size === 0) watched.delete(credential);
      }
      stopIfIdle();
    },
    end(credential) {
      end(credential);
      stopIfIdle();
    },
  };
}
