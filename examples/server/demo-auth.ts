import { argon2id, argon2Verify } from 'hash-wasm';
import { isSwitchboardError, type Switchboard } from 'switchboard-kit';
import { createPasswordSignIn, type PasswordUser, randomSecret, type SignIn } from 'switchboard-kit/oauth';

/** Demo sign-in: users are clients who can sign in; passwords are hashed with argon2id (OWASP settings). */
export interface DemoUsers {
  readonly signIn: SignIn;
  /** Gives the client with this e-mail a password, if that client exists. */
  add(switchboard: Switchboard, email: string, password: string): Promise<boolean>;
}

export function demoUsers(): DemoUsers {
  const users = new Map<string, PasswordUser>();
  return {
    signIn: createPasswordSignIn({
      findUser: async (email) => users.get(email.trim().toLowerCase()) ?? null,
      verify: (password, hash) => argon2Verify({ password, hash }),
    }),
    async add(switchboard, email, password) {
      const [client] = (
        await switchboard.domain.clients.list({ where: { email }, range: { offset: 0, limit: 1 } })
      ).items;
      if (!client) return false;
      const passwordHash = await argon2id({
        password,
        salt: crypto.getRandomValues(new Uint8Array(16)),
        parallelism: 1,
        iterations: 2,
        memorySize: 19_456,
        hashLength: 32,
        outputType: 'encoded',
      });
      users.set(email, { userId: client.id, passwordHash });
      return true;
    },
  };
}

export interface DemoOAuthClients {
  readonly botId: string;
  /** Shown only when this start registered the client (secrets are stored hashed, never readable). */
  readonly botSecret: string | undefined;
  readonly widgetId: string;
  readonly redirectUris: readonly string[];
}

/** Registers a confidential chatbot backend and a public PKCE widget, unless they already exist. */
export async function registerDemoClients(
  switchboard: Switchboard,
  options: { secret: string | undefined; redirectUris: readonly string[] },
): Promise<DemoOAuthClients> {
  const oauth = switchboard.oauth;
  if (!oauth) throw new Error('the example server needs the OAuth block');
  const scopes = ['crm.clients.read', 'crm.orders.read', 'chat.messages.read', 'chat.messages.write'];
  const redirectUris = [...options.redirectUris];
  let botSecret: string | undefined;
  if (!(await switchboard.storage.oauth.clients.get('demo-bot'))) {
    botSecret = options.secret ?? randomSecret('sbcs_');
    const registered = await registerOnce(
      oauth.registerClient({
        id: 'demo-bot',
        name: 'Demo support bot',
        type: 'confidential',
        secret: botSecret,
        redirectUris,
        grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
        scopes: [...scopes, 'crm.clients.write', 'crm.orders.write'],
      }),
    );
    if (!registered) botSecret = undefined;
  }
  if (!(await switchboard.storage.oauth.clients.get('demo-widget'))) {
    await registerOnce(
      oauth.registerClient({
        id: 'demo-widget',
        name: 'Demo chat widget (PKCE)',
        type: 'public',
        redirectUris,
        scopes,
      }),
    );
  }
  return { botId: 'demo-bot', botSecret, widgetId: 'demo-widget', redirectUris };
}

/** Several instances starting at once race to register; losing the race (a conflict) is fine. */
async function registerOnce(registration: Promise<unknown>): Promise<boolean> {
  try {
    await registration;
    return true;
  } catch (error) {
    if (isSwitchboardError(error) && error.code === 'conflict') return false;
    throw error;
  }
}
