/**
 * What the GraphQL peers (yoga.ts, mercurius.ts) share, so they do the same work as Switchboard: its
 * schema's context over a domain seeded like the Switchboard server, and the bench key looked up by
 * its SHA-256 as Switchboard's guard does.
 */
import { createHash } from 'node:crypto';
import { createContext } from '../../../src/graphql/context.js';
import { DEFAULT_LIMITS } from '../../../src/graphql/index.js';
import {
  createDomain,
  createMemoryEventBus,
  createRuntime,
  type Principal,
  silentLogger,
} from '../../../src/index.js';
import { createMemoryStorage } from '../../../src/storage/memory/index.js';
import { EVERY_SCOPE } from '../../support/scopes.js';
import { BENCH_KEY, seedBenchData } from './fixture.js';

const domain = createDomain(createRuntime({ storage: createMemoryStorage() }));
await seedBenchData(domain);
const bus = createMemoryEventBus();

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const admin: Principal = { kind: 'service', subject: 'key_admin', scopes: EVERY_SCOPE };
const keys = new Map([[sha256(BENCH_KEY), admin]]);

/** The caller a bearer header names, or undefined. */
export const principalOf = (header: string | undefined): Principal | undefined =>
  header?.startsWith('Bearer ') ? keys.get(sha256(header.slice(7))) : undefined;

/** The per-request context of Switchboard's resolvers, for `principal`. */
export const contextFor = (principal: Principal, request?: Request) =>
  createContext({
    principal,
    domain,
    bus,
    limits: DEFAULT_LIMITS,
    logger: silentLogger,
    ...(request ? { request } : {}),
  });
