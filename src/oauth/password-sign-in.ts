import type { SignIn } from './sign-in.js';

/** A user who signs in with a password: a client id and their password hash (e.g. argon2id). */
export interface PasswordUser {
  readonly userId: string;
  readonly passwordHash: string;
}

/** Options of {@link createPasswordSignIn}: how to find users and check passwords. */
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
}

/**
 * The sign-in of the built-in consent page: username and password checked against your user store.
 * Online guessing is stopped by the authorization server, not here: its lockout (`signInLockout`,
 * default 5 wrong passwords in a row per username, shared by every instance on the storage) guards
 * every `verifyPassword`, this one included, on the sign-in page and in the console.
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
  return {
    async verifyPassword(username, password) {
      const user = await options.findUser(username);
      if (!user) {
        if (options.dummyHash) await options.verify(password, options.dummyHash).catch(() => false);
        return null;
      }
      const ok = await options.verify(password, user.passwordHash).catch(() => false);
      return ok ? user.userId : null;
    },
  };
}
