/**
 * What admins (and hosts, in code) send to manage OAuth clients, API keys and grants, as zod schemas:
 * the one place each rule lives. Rules beyond a field's shape (a redirect URI's form, a known scope,
 * the flows a client type allows) are issues with their own `code`, reported together with the rest.
 * Unknown fields are ignored, as the admin routes always did.
 */
import { z } from 'zod';
import type { ScopeCatalogue } from '../core/auth.js';
import type { OAuthGrantType } from '../core/storage/index.js';
import { MCP_TOOL_NAME } from './client-tools.js';
import { redirectUriProblem } from './redirect-uri.js';

/** A checked client registration. */
export interface ClientFields {
  readonly name: string;
  readonly type: 'confidential' | 'public';
  readonly redirectUris: readonly string[];
  readonly scopes: readonly string[];
  readonly grantTypes?: readonly OAuthGrantType[] | undefined;
}

/** A checked registration from the host, who may fix the id and the secret. */
export interface HostClientFields extends ClientFields {
  readonly id?: string | undefined;
  readonly secret?: string | undefined;
}

/** A checked change of a client. */
export interface ClientChangeFields {
  readonly name?: string | undefined;
  readonly redirectUris?: readonly string[] | undefined;
  readonly scopes?: readonly string[] | undefined;
}

/** A checked restriction of a client's MCP tools: `null` lifts it. */
export interface ClientToolsFields {
  readonly tools: readonly string[] | null;
}

/** A checked new API key. */
export interface ApiKeyInputFields {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly key?: string | undefined;
}

/** The grant types a client gets when registration names none. */
export const DEFAULT_GRANT_TYPES: readonly OAuthGrantType[] = ['authorization_code', 'refresh_token'];

const name = z.string().trim().min(1).max(200);

const redirectUri = z.string().superRefine((uri, ctx) => {
  const problem = redirectUriProblem(uri);
  if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { code: 'invalid_redirect_uri' } });
});

/** A scope that exists: one of `knownScopes`. */
function knownScope(knownScopes: ScopeCatalogue): z.ZodString {
  return z.string().superRefine((scope, ctx) => {
    if (!Object.hasOwn(knownScopes, scope))
      ctx.addIssue({
        code: 'custom',
        message: `Unknown scope "${scope}".`,
        params: { code: 'unknown_scope' },
      });
  });
}

const registrationFields = (knownScopes: ScopeCatalogue) => ({
  name,
  type: z.enum(['confidential', 'public']),
  /** None is fine for a client-credentials client; the code flow needs one (below). */
  redirectUris: z.array(redirectUri).default([]),
  scopes: z.array(knownScope(knownScopes)).min(1),
  grantTypes: z.array(z.enum(['authorization_code', 'refresh_token', 'client_credentials'])).optional(),
});

/** The rules across fields: which flows a client type may use, and what the code flow needs. */
function flowRules(
  client: {
    readonly type: 'confidential' | 'public';
    readonly redirectUris: readonly string[];
    readonly grantTypes?: readonly OAuthGrantType[] | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const grantTypes = client.grantTypes ?? DEFAULT_GRANT_TYPES;
  if (grantTypes.includes('client_credentials') && client.type === 'public')
    ctx.addIssue({
      code: 'custom',
      path: ['grantTypes'],
      message: 'Only confidential clients may use client_credentials.',
      params: { code: 'invalid' },
    });
  if (grantTypes.includes('authorization_code') && !client.redirectUris.length)
    ctx.addIssue({
      code: 'custom',
      path: ['redirectUris'],
      message: 'The authorization code flow needs at least one redirect URI.',
      params: { code: 'required' },
    });
}

/** A client an admin registers: `{ name, type, redirectUris, scopes, grantTypes? }`. */
export function clientRegistration(knownScopes: ScopeCatalogue): z.ZodType<ClientFields> {
  return z.object(registrationFields(knownScopes)).superRefine(flowRules);
}

/** A client the host registers in code: an admin's fields, plus a fixed id or secret. */
export function hostClientRegistration(knownScopes: ScopeCatalogue): z.ZodType<HostClientFields> {
  return z
    .object({
      ...registrationFields(knownScopes),
      id: z.string().min(1).max(200).optional(),
      secret: z.string().min(32).optional(),
    })
    .superRefine(flowRules);
}

/** What may change on a client: `{ name?, redirectUris?, scopes? }`; the result is checked as a registration. */
export function clientChanges(knownScopes: ScopeCatalogue): z.ZodType<ClientChangeFields> {
  return z.object({
    name: name.optional(),
    redirectUris: z.array(redirectUri).optional(),
    scopes: z.array(knownScope(knownScopes)).min(1).optional(),
  });
}

/**
 * The MCP tools a client may call: `{ tools: [names] }`, or `{ tools: null }` for every tool its scopes
 * allow. Each name must be one of `knownTools` (the tools `/mcp` serves) when given, else of a tool
 * name's form ({@link MCP_TOOL_NAME}).
 */
export function clientTools(knownTools?: () => readonly string[]): z.ZodType<ClientToolsFields> {
  const tool = z.string().superRefine((name, ctx) => {
    const known = knownTools ? knownTools().includes(name) : MCP_TOOL_NAME.test(name);
    if (!known)
      ctx.addIssue({
        code: 'custom',
        message: knownTools
          ? `Unknown MCP tool "${name}".`
          : `"${name}" is not an MCP tool name (list_…, get_…, create_…, update_…, delete_… or move_…).`,
        params: { code: 'unknown_tool' },
      });
  });
  return z.object({
    tools: z
      .array(tool)
      .max(1000)
      .nullable()
      .meta({ description: 'Tool names, e.g. ["list_bookings"]; null for every tool its scopes allow' }),
  });
}

/** A secret rotation: `{ overlapSeconds? }` (its range is checked where the rotation is made). */
export const SecretRotation = z.object({ overlapSeconds: z.number().optional() });

/** An API key the host creates in code: `{ name, scopes, key? }`. */
export const HostApiKeyFields: z.ZodType<ApiKeyInputFields> = z.object({
  name,
  scopes: z.array(z.string()),
  key: z.string().min(32).optional(),
});

/** An API key an admin creates: `{ name, scopes }`, every scope a known one. */
export function apiKeyFields(knownScopes: ScopeCatalogue): z.ZodType<ApiKeyInputFields> {
  return z.object({ name, scopes: z.array(knownScope(knownScopes)) });
}

/** Which live grants to list: `{ userId?, clientId? }`. */
export const GrantFilterFields = z.object({
  userId: z.string().min(1).max(200).optional(),
  clientId: z.string().min(1).max(200).optional(),
});
