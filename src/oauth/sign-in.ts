/**
 * How the authorization server learns who the user is. Supply `currentUser` when your host already has
 * a session (the consent page then skips the password form), `verifyPassword` to use the built-in
 * sign-in form, or both. Each returns the user's id, which is a client id (a user is a client who can
 * sign in), or `null`.
 */
export interface SignIn {
  currentUser?(request: Request): Promise<string | null>;
  verifyPassword?(username: string, password: string): Promise<string | null>;
}
