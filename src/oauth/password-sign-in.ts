import { type Clock, systemClock } from '../core/runtime.js';
import type { SignIn } from './server-options.js';

/** A user who signs in with a password: a client id and their password hash (e.g. argon2id). */
export interface PasswordUser {
  readonly userId: string;
  readonly passwordHash: string;
}

/** Options of {@link createPasswordSignIn}: how to find users and check passwords, and when to lock out. */
export interface PasswordSignInOptions {
  /** Finds a user by what they type as username (the e-mail of their client record). */
  findUser(username: string): Promise<PasswordUser | null>;
  /**
   * Checks a password against its stored hash. Bring a real password hash, e.g. argon2id from
   * `hash-wasm` (portable WASM): `(password, hash) => argon2Verify({ password, hash })`.
   */
  verify(password: string, passwordHash: string): Promise<boolean>;
  /**
   * A hash of some random password, checked when no user matches, so the response time does not tell
   * which e-mail addresses have accounts.
   */
  readonly dummyHash?: string;
  /**
   * After this many wrong passwords for one username within `lockoutMs`, that username is refused
   * until the window has passed, which stops online guessing (default 5; 0 turns it off). Counted per
   * process: put a rate-limiting proxy in front when running many instances.
   */
  readonly maxFailures?: number;
  /** Default 15 minutes. */
  readonly lockoutMs?: number;
  readonly clock?: Clock;
}

/** Usernames whose failures are remembered at once; the oldest are forgotten beyond it. */
const MAX_TRACKED = 10_000;

/**
 * The sign-in of the built-in consent page: username and password checked against your user store.
 *
 * @example
 * import { argon2Verify } from 'hash-wasm';
 * const signIn = createPasswordSignIn({
 *   findUser: async (email) => users.get(email.toLowerCase()) ?? null,
 *   verify: (password, hash) => argon2Verify({ password, hash }),
 * });
 * createSwitchboard({ oauth: { signIn } });
 */
export function createPasswordSignIn(options: PasswordSignInOptions): SignIn {
  const clock = options.clock ?? systemClock;
  const maxFailures = options.maxFailures ?? 5;
  const lockoutMs = options.lockoutMs ?? 15 * 60_000;
  const failures = new Map<string, { count: number; since: number }>();

  const lockedOut = (key: string, now: number): boolean => {
    const entry = failures.get(key);
    if (!entry) return false;
    if (entry.since + lockoutMs <= now) {
      failures.delete(key);
      return false;
    }
    return maxFailures > 0 && entry.count >= maxFailures;
  };
  const fail = (key: string, now: number): void => {
    const entry = failures.get(key) ?? { count: 0, since: now };
    failures.delete(key);
    failures.set(key, { count: entry.count + 1, since: entry.since });
    if (failures.size > MAX_TRACKED) failures.delete(failures.keys().next().value as string);
  };

  return {
    async verifyPassword(username, password) {
      const key = username.toLowerCase();
      const now = clock.now();
      if (lockedOut(key, now)) return null;
      const user = await options.findUser(username);
      if (!user) {
        if (options.dummyHash) await options.verify(password, options.dummyHash).catch(() => false);
        fail(key, now);
        return null;
      }
      const ok = await options.verify(password, user.passwordHash).catch(() => false);
      if (!ok) {
        fail(key, now);
        return null;
      }
      failures.delete(key);
      return user.userId;
    },
  };
}
