/**
 * Sessions of the operator console, kept by the server so that signing out ends a session on every
 * instance at once: the cookie alone no longer opens the console. The session's id travels only sealed
 * in its cookie; the store keeps its SHA-256 hex.
 */

/** One signed-in console session. Instants are epoch milliseconds. */
export interface ConsoleSessionRecord {
  /** SHA-256 hex of the session's id. */
  readonly idHash: string;
  /** The user who signed in with their account; `null` for a session of an admin API key. */
  readonly userId: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** Console sessions by id hash: a session is open while its record is here. */
export interface ConsoleSessionStore {
  /** Throws a `conflict` SwitchboardError when the hash is taken. */
  insert(session: ConsoleSessionRecord): Promise<void>;
  /** The lookup on every console request; a session past its `expiresAt` is here until swept. */
  get(idHash: string): Promise<ConsoleSessionRecord | null>;
  /** Ends a session (sign-out); false when absent. */
  delete(idHash: string): Promise<boolean>;
  /** Ends every session of a user; returns how many. */
  deleteByUser(userId: string): Promise<number>;
  /** Deletes the sessions whose `expiresAt` is before `before`; returns how many. */
  deleteExpired(before: number): Promise<number>;
}
