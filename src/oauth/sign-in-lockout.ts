/**
 * The lockout of password sign-in: a budget of wrong passwords per username in the storage's
 * `RateLimitStore`, so every instance on one storage shares it, whoever checks the password.
 */
import { SwitchboardError } from '../core/errors.js';
import type { Clock } from '../core/runtime.js';
import type { RateDecision, RateLimitStore, RateRule } from '../core/storage/index.js';
import { rateHeaders } from '../http/rate-limit.js';
import { hashSecret } from './secrets.js';
import type { SignIn } from './sign-in.js';

/**
 * How many wrong passwords a username may have: `maxFailures` in a row (default 5), then one more
 * each `windowMs / maxFailures` (default window 15 minutes: one more every 3 minutes).
 */
export interface SignInLockoutOptions {
  readonly maxFailures?: number;
  readonly windowMs?: number;
}

/** The bucket of a lockout, checked: `maxFailures` per `windowMs`. */
export function lockoutRule(options: SignInLockoutOptions = {}): RateRule {
  const rule = { limit: options.maxFailures ?? 5, windowMs: options.windowMs ?? 15 * 60_000 };
  if (!Number.isInteger(rule.limit) || rule.limit < 1 || !(rule.windowMs > 0))
    throw new SwitchboardError(
      'bad_request',
      'signInLockout needs maxFailures of 1 or more and a windowMs above 0 (or false to turn it off).',
    );
  return rule;
}

/**
 * `signIn` with its `verifyPassword` behind the lockout. Each attempt takes one unit from the
 * username's bucket before the password is checked, so concurrent guesses never get more than the
 * budget through, and a right password gives it back (a cost of -1). Over budget, the attempt is
 * refused at once (the password is not checked) with `rate_limited`, its `retryAfter` in seconds and
 * a message saying in how many minutes to try again. Usernames are keyed trimmed, in lower case,
 * and hashed: the store holds no e-mail address.
 */
export function lockSignIn(
  signIn: SignIn,
  options: { readonly store: RateLimitStore; readonly rule: RateRule; readonly clock: Clock },
): SignIn {
  const verify = signIn.verifyPassword?.bind(signIn);
  if (!verify) return signIn;
  const { store, rule, clock } = options;
  const locked: SignIn = {
    async verifyPassword(username, password) {
      const key = `sign-in-lockout:${hashSecret(username.trim().toLowerCase())}`;
      const attempt = await store.take(key, rule, 1, clock.now());
      if (!attempt.allowed) throw lockedOut(rule, attempt);
      let userId: string | null;
      try {
        userId = await verify(username, password);
      } catch (error) {
        // Not a wrong password: the check itself failed.
        await store.take(key, rule, -1, clock.now());
        throw error;
      }
      if (userId !== null) await store.take(key, rule, -1, clock.now());
      return userId;
    },
  };
  if (signIn.currentUser) locked.currentUser = signIn.currentUser.bind(signIn);
  return locked;
}

/** The refusal, with the lockout's RateLimit fields (`"sign-in-lockout";r=0;t=…`) for the page's 429. */
function lockedOut(rule: RateRule, decision: RateDecision): SwitchboardError {
  const { retryAfterMs } = decision;
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  const error = new SwitchboardError(
    'rate_limited',
    `Too many wrong passwords for this account. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    { retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)) },
  );
  return Object.assign(error, { rateHeaders: rateHeaders('sign-in-lockout', rule, decision) });
}
