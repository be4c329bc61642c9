/**
 * The schema, as numbered steps. A step is never edited once released: changes are new steps, so every
 * database can be brought from any past version to the current one. Table names carry a
 * `switchboard_` prefix so the adapter can share a database with the host's own tables.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

// Ids use the "C" collation so `ORDER BY created_at, id` breaks ties by code unit, as the memory
// adapter does, whatever the database's locale is.
const core = `
CREATE TABLE switchboard_clients (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL,
  phone text,
  city text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  version integer NOT NULL,
  CONSTRAINT switchboard_clients_email_key UNIQUE (email)
);
CREATE INDEX switchboard_clients_created_idx ON switchboard_clients (created_at, id);
CREATE INDEX switchboard_clients_city_idx ON switchboard_clients (city, created_at, id);

CREATE TABLE switchboard_orders (
  id text COLLATE "C" PRIMARY KEY,
  client_id text COLLATE "C" NOT NULL,
  status text NOT NULL,
  total numeric NOT NULL,
  currency text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  version integer NOT NULL
);
CREATE INDEX switchboard_orders_client_idx ON switchboard_orders (client_id, created_at, id);
CREATE INDEX switchboard_orders_client_status_idx
  ON switchboard_orders (client_id, status, created_at, id);

CREATE TABLE switchboard_messages (
  id text COLLATE "C" PRIMARY KEY,
  chatbot_id text NOT NULL,
  visitor_id text NOT NULL,
  content text NOT NULL,
  sent_at timestamptz NOT NULL
);
CREATE INDEX switchboard_messages_chatbot_idx ON switchboard_messages (chatbot_id, sent_at, id);
CREATE INDEX switchboard_messages_visitor_idx
  ON switchboard_messages (chatbot_id, visitor_id, sent_at, id);

-- Pending events only: a relayed event is deleted. seq keeps append order across relays.
CREATE TABLE switchboard_outbox (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  type text NOT NULL,
  occurred_at text NOT NULL,
  data json NOT NULL,
  lease_until bigint NOT NULL DEFAULT 0
);

CREATE TABLE switchboard_idempotency (
  key text PRIMARY KEY,
  done boolean NOT NULL,
  result text,
  until_ms bigint NOT NULL,
  claim_token text
);
CREATE INDEX switchboard_idempotency_until_idx ON switchboard_idempotency (until_ms);

-- Events published on the cross-instance bus; NOTIFY carries a reference to a row, never the event.
CREATE TABLE switchboard_bus_events (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  origin text NOT NULL,
  type text NOT NULL,
  occurred_at text NOT NULL,
  data json NOT NULL,
  published_ms bigint NOT NULL
);
CREATE INDEX switchboard_bus_events_published_idx ON switchboard_bus_events (published_ms);
`;

// Token and code instants are epoch milliseconds (bigint), as the OAuth contract compares them.
const oauth = `
CREATE TABLE switchboard_oauth_clients (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL,
  secret_hash text,
  redirect_uris text[] NOT NULL,
  scopes text[] NOT NULL,
  grant_types text[] NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX switchboard_oauth_clients_created_idx ON switchboard_oauth_clients (created_at, id);

CREATE TABLE switchboard_oauth_codes (
  code_hash text PRIMARY KEY,
  client_id text NOT NULL,
  user_id text NOT NULL,
  redirect_uri text NOT NULL,
  scopes text[] NOT NULL,
  code_challenge text,
  nonce text,
  grant_id text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  consumed_at bigint
);
CREATE INDEX switchboard_oauth_codes_expires_idx ON switchboard_oauth_codes (expires_at);
CREATE INDEX switchboard_oauth_codes_grant_idx ON switchboard_oauth_codes (grant_id);

CREATE TABLE switchboard_oauth_grants (
  id text PRIMARY KEY,
  client_id text NOT NULL,
  user_id text,
  scopes text[] NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  revoked_at bigint
);
CREATE INDEX switchboard_oauth_grants_client_idx ON switchboard_oauth_grants (client_id) WHERE revoked_at IS NULL;
CREATE INDEX switchboard_oauth_grants_expires_idx ON switchboard_oauth_grants (expires_at);

CREATE TABLE switchboard_oauth_refresh_tokens (
  token_hash text PRIMARY KEY,
  grant_id text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint
);
CREATE INDEX switchboard_oauth_refresh_tokens_grant_idx ON switchboard_oauth_refresh_tokens (grant_id);
CREATE INDEX switchboard_oauth_refresh_tokens_expires_idx ON switchboard_oauth_refresh_tokens (expires_at);

CREATE TABLE switchboard_oauth_access_tokens (
  token_hash text PRIMARY KEY,
  grant_id text NOT NULL,
  client_id text NOT NULL,
  user_id text,
  scopes text[] NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX switchboard_oauth_access_tokens_grant_idx ON switchboard_oauth_access_tokens (grant_id);
CREATE INDEX switchboard_oauth_access_tokens_expires_idx ON switchboard_oauth_access_tokens (expires_at);

CREATE TABLE switchboard_api_keys (
  id text COLLATE "C" PRIMARY KEY,
  prefix text NOT NULL,
  hash text NOT NULL UNIQUE,
  name text NOT NULL,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz,
  last_used_at timestamptz
);
CREATE INDEX switchboard_api_keys_created_idx ON switchboard_api_keys (created_at, id);
`;

// Secrets are stored as given (HMAC needs them); `json` keeps their order and fields exactly.
const webhooks = `
CREATE TABLE switchboard_webhook_endpoints (
  id text COLLATE "C" PRIMARY KEY,
  url text NOT NULL,
  description text NOT NULL,
  event_types text[] NOT NULL,
  secrets json NOT NULL,
  scheme text NOT NULL,
  enabled boolean NOT NULL,
  disabled_reason text,
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  version integer NOT NULL
);
CREATE INDEX switchboard_webhook_endpoints_created_idx ON switchboard_webhook_endpoints (created_at, id);

CREATE TABLE switchboard_webhook_deliveries (
  id text COLLATE "C" PRIMARY KEY,
  endpoint_id text COLLATE "C" NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  payload text NOT NULL,
  status text NOT NULL,
  attempts integer NOT NULL,
  next_attempt_at timestamptz,
  leased_by text,
  lease_until timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT switchboard_webhook_deliveries_event_endpoint_key UNIQUE (event_id, endpoint_id)
);
-- The queue: pending deliveries of an endpoint, oldest due first (claims, per-endpoint lease counts).
CREATE INDEX switchboard_webhook_deliveries_due_idx
  ON switchboard_webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX switchboard_webhook_deliveries_next_idx
  ON switchboard_webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- The delivery log: newest first, by endpoint and status.
CREATE INDEX switchboard_webhook_deliveries_created_idx
  ON switchboard_webhook_deliveries (created_at DESC, id DESC);
CREATE INDEX switchboard_webhook_deliveries_endpoint_idx
  ON switchboard_webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX switchboard_webhook_deliveries_status_idx
  ON switchboard_webhook_deliveries (status, created_at DESC, id DESC);

CREATE TABLE switchboard_webhook_attempts (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  delivery_id text NOT NULL,
  endpoint_id text NOT NULL,
  number integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  response_excerpt text,
  error text,
  succeeded boolean NOT NULL
);
CREATE INDEX switchboard_webhook_attempts_delivery_idx ON switchboard_webhook_attempts (delivery_id, seq);
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'core records, outbox, idempotency, bus', sql: core },
  { version: 2, name: 'oauth and api keys', sql: oauth },
  { version: 3, name: 'webhooks', sql: webhooks },
  {
    version: 4,
    name: 'webhook delivery log pruning',
    sql: `CREATE INDEX switchboard_webhook_deliveries_finished_idx
            ON switchboard_webhook_deliveries (updated_at) WHERE status <> 'pending';`,
  },
  {
    version: 5,
    name: 'webhook lease counts',
    // Leased rows only (a few per endpoint): counting live leases never walks an endpoint's backlog.
    sql: `CREATE INDEX switchboard_webhook_deliveries_leased_idx
            ON switchboard_webhook_deliveries (endpoint_id) WHERE status = 'pending' AND lease_until IS NOT NULL;`,
  },
  {
    version: 6,
    name: 'oauth client secret rotation',
    sql: `ALTER TABLE switchboard_oauth_clients
            ADD COLUMN previous_secret_hash text,
            ADD COLUMN previous_secret_until timestamptz;`,
  },
  {
    version: 7,
    name: 'declared resources',
    // One table for every resource declared with defineResource: a host's new resource needs no
    // migration. Lists run per resource in creation order; filters on declared fields are jsonb
    // comparisons on `data`.
    sql: `CREATE TABLE switchboard_resources (
            resource text NOT NULL,
            id text NOT NULL,
            version integer NOT NULL,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            data jsonb NOT NULL,
            PRIMARY KEY (resource, id)
          );
          CREATE INDEX switchboard_resources_created_idx ON switchboard_resources (resource, created_at, id);
          CREATE INDEX switchboard_resources_data_idx ON switchboard_resources USING gin (data jsonb_path_ops);`,
  },
  {
    version: 8,
    name: 'built-in records as resources',
    // Clients, orders and messages are declared resources now: their rows move into the resources
    // table, in the shape the resource store reads. Ids compare by code unit, as in memory.
    sql: `ALTER TABLE switchboard_resources ALTER COLUMN id TYPE text COLLATE "C";
          INSERT INTO switchboard_resources (resource, id, version, created_at, updated_at, data)
            SELECT 'client', id, version, created_at, updated_at,
                   jsonb_build_object('name', name, 'email', email, 'phone', phone, 'city', city)
            FROM switchboard_clients;
          INSERT INTO switchboard_resources (resource, id, version, created_at, updated_at, data)
            SELECT 'order', id, version, created_at, updated_at,
                   jsonb_build_object('clientId', client_id, 'total', total::text, 'currency', currency,
                                      'status', status)
            FROM switchboard_orders;
          INSERT INTO switchboard_resources (resource, id, version, created_at, updated_at, data)
            SELECT 'message', id, 1, sent_at, sent_at,
                   jsonb_build_object('chatbotId', chatbot_id, 'visitorId', visitor_id, 'content', content,
                                      'conversationId', NULL)
            FROM switchboard_messages;
          DROP TABLE switchboard_messages;
          DROP TABLE switchboard_orders;
          DROP TABLE switchboard_clients;`,
  },
  {
    version: 9,
    name: 'resource lists by per-field indexes',
    // Lists now compare `data ->> 'field'`, served by a partial index per declared filter that the
    // resource store's prepare() makes; the containment index costs every write and serves none.
    sql: 'DROP INDEX switchboard_resources_data_idx;',
  },
  {
    version: 10,
    name: 'oauth grants listed newest first',
    // A user's grants, and all grants, newest first (the admin list); a client's live grants use
    // switchboard_oauth_grants_client_idx. Ids compare by code unit, as in memory.
    sql: `CREATE INDEX switchboard_oauth_grants_user_idx
            ON switchboard_oauth_grants (user_id, created_at DESC, id COLLATE "C" DESC);
          CREATE INDEX switchboard_oauth_grants_created_idx
            ON switchboard_oauth_grants (created_at DESC, id COLLATE "C" DESC);`,
  },
  {
    version: 11,
    name: 'webhook attempt request headers and failures per endpoint',
    // `json` keeps the headers in the order sent; older attempts read as null. The partial index holds
    // failed attempts only, so an endpoint's latest failures are a short index read.
    sql: `ALTER TABLE switchboard_webhook_attempts ADD COLUMN request_headers json;
          CREATE INDEX switchboard_webhook_attempts_failures_idx
            ON switchboard_webhook_attempts (endpoint_id, started_at DESC, seq DESC) WHERE NOT succeeded;`,
  },
  {
    version: 12,
    name: 'rate limits',
    // One time per bucket (GCRA). Unlogged: budgets are worth no WAL, and a crash only refills them.
    sql: `CREATE UNLOGGED TABLE switchboard_rate_limits (
            key text COLLATE "C" PRIMARY KEY,
            tat double precision NOT NULL
          );`,
  },
  {
    version: 13,
    name: 'trace context of events and webhook deliveries',
    // The W3C traceparent of the request that caused an event, carried to its webhooks; null without tracing.
    sql: `ALTER TABLE switchboard_outbox ADD COLUMN traceparent text;
          ALTER TABLE switchboard_webhook_deliveries ADD COLUMN traceparent text;`,
  },
  {
    version: 14,
    name: 'owner of events',
    // The client an event's record belongs to (through relations): a user's subscriptions on any
    // instance receive only their own. Null for records no client owns.
    sql: `ALTER TABLE switchboard_outbox ADD COLUMN owner text;
          ALTER TABLE switchboard_bus_events ADD COLUMN owner text;`,
  },
  {
    version: 15,
    name: 'console sessions',
    // Kept by the server so a sign-out ends a session on every instance (the cookie alone opens nothing).
    sql: `CREATE TABLE switchboard_console_sessions (
            id_hash text COLLATE "C" PRIMARY KEY,
            user_id text COLLATE "C",
            created_at bigint NOT NULL,
            expires_at bigint NOT NULL
          );
          CREATE INDEX switchboard_console_sessions_user_idx ON switchboard_console_sessions (user_id)
            WHERE user_id IS NOT NULL;
          CREATE INDEX switchboard_console_sessions_expires_idx ON switchboard_console_sessions (expires_at);`,
  },
  {
    version: 16,
    name: 'api version of webhook endpoints',
    // The API version whose record shapes an endpoint is sent; those registered before it was pinned
    // were sent v1's shapes, and keep them.
    sql: `ALTER TABLE switchboard_webhook_endpoints ADD COLUMN api_version integer NOT NULL DEFAULT 1;`,
  },
  {
    version: 17,
    name: 'epoch times of oauth clients and api keys',
    // Every time in the storage port but a business record's is epoch milliseconds (docs/decisions.md),
    // as the token tables have been from the start. Indexes on these columns are rebuilt by the change.
    sql: `ALTER TABLE switchboard_oauth_clients
            ALTER COLUMN created_at TYPE bigint USING ${epochMs('created_at')},
            ALTER COLUMN previous_secret_until TYPE bigint USING ${epochMs('previous_secret_until')};
          ALTER TABLE switchboard_api_keys
            ALTER COLUMN created_at TYPE bigint USING ${epochMs('created_at')},
            ALTER COLUMN revoked_at TYPE bigint USING ${epochMs('revoked_at')},
            ALTER COLUMN last_used_at TYPE bigint USING ${epochMs('last_used_at')};`,
  },
  {
    version: 18,
    name: 'epoch times of webhooks',
    // The same for webhook endpoints (and the times inside their secrets), deliveries and attempts: the
    // dispatcher compares and writes these on every attempt.
    sql: `ALTER TABLE switchboard_webhook_endpoints
            ALTER COLUMN failing_since TYPE bigint USING ${epochMs('failing_since')},
            ALTER COLUMN created_at TYPE bigint USING ${epochMs('created_at')},
            ALTER COLUMN updated_at TYPE bigint USING ${epochMs('updated_at')};
          UPDATE switchboard_webhook_endpoints SET secrets = (
            SELECT COALESCE(json_agg(json_build_object(
                     'secret', s -> 'secret',
                     'createdAt', ${epochMs("(s ->> 'createdAt')::timestamptz")},
                     'expiresAt', ${epochMs("(s ->> 'expiresAt')::timestamptz")}) ORDER BY n), '[]')
            FROM json_array_elements(secrets) WITH ORDINALITY AS t(s, n));
          ALTER TABLE switchboard_webhook_deliveries
            ALTER COLUMN next_attempt_at TYPE bigint USING ${epochMs('next_attempt_at')},
            ALTER COLUMN lease_until TYPE bigint USING ${epochMs('lease_until')},
            ALTER COLUMN created_at TYPE bigint USING ${epochMs('created_at')},
            ALTER COLUMN updated_at TYPE bigint USING ${epochMs('updated_at')};
          ALTER TABLE switchboard_webhook_attempts
            ALTER COLUMN started_at TYPE bigint USING ${epochMs('started_at')};`,
  },
  {
    version: 19,
    name: 'self-registered oauth clients',
    // Clients that registered themselves (RFC 7591) are shown as unverified; those before were all set
    // up by an admin or the host.
    sql: `ALTER TABLE switchboard_oauth_clients ADD COLUMN self_registered boolean NOT NULL DEFAULT false;`,
  },
  {
    version: 20,
    name: 'resource indicators of oauth grants and access tokens',
    // The resources a grant was asked for (RFC 8707) and the audience of each access token; empty for
    // every grant and token before, which stay usable on every resource as they were.
    sql: `ALTER TABLE switchboard_oauth_grants ADD COLUMN resources text[] NOT NULL DEFAULT '{}';
          ALTER TABLE switchboard_oauth_access_tokens ADD COLUMN audience text[] NOT NULL DEFAULT '{}';`,
  },
  {
    version: 21,
    name: 'approved and disabled oauth clients, and their mcp tools',
    // Null for every client before: not approved, not disabled, every MCP tool its scopes allow. An
    // empty mcp_tools is a client allowed no tool, so null and '{}' differ.
    sql: `ALTER TABLE switchboard_oauth_clients ADD COLUMN approved_at bigint,
            ADD COLUMN disabled_at bigint, ADD COLUMN mcp_tools text[];`,
  },
  {
    version: 22,
    name: 'interface of events',
    // The interface a change came through when its caller said (`mcp`), for the console's activity;
    // null for every event before, and for callers that do not say.
    sql: `ALTER TABLE switchboard_outbox ADD COLUMN via text;
          ALTER TABLE switchboard_bus_events ADD COLUMN via text;`,
  },
  {
    version: 23,
    name: 'webhook attempt response headers and activity per endpoint',
    // Null for every attempt before. The index serves an endpoint's health: its attempts of the last
    // 24 hours per hour, and its latest attempt.
    sql: `ALTER TABLE switchboard_webhook_attempts ADD COLUMN response_headers json;
          CREATE INDEX switchboard_webhook_attempts_endpoint_idx
            ON switchboard_webhook_attempts (endpoint_id, started_at DESC, seq DESC);`,
  },
  {
    version: 24,
    name: 'resources of an authorization code',
    // What one authorization asked for, now that a user's consents to a client share one grant. Null
    // for every code before (they live a minute at most): their tokens get the grant's resources.
    sql: 'ALTER TABLE switchboard_oauth_codes ADD COLUMN resources text[];',
  },
  {
    version: 25,
    name: 'webhook delivery claim in one call',
    // The claim's steps (webhook-deliveries.ts says why each) in one round trip instead of five (BEGIN,
    // head, lock, take, COMMIT). VOLATILE: each statement sees what committed before it began, so the
    // take sees every lease committed before the endpoint locks were granted. Arguments: now, the
    // default cap, the limit, per-endpoint cap ids and caps, the worker, the lease's end.
    sql: `CREATE FUNCTION switchboard_claim_webhook_deliveries(
            bigint, integer, integer, text[], integer[], text, bigint)
          RETURNS SETOF switchboard_webhook_deliveries LANGUAGE plpgsql VOLATILE AS $claim$
          DECLARE
            first_look record;
            endpoint_ids text[];
          BEGIN
            -- At most $3 endpoints, those whose oldest claimable delivery is oldest, below their cap:
            -- first from the 256 oldest claimable rows of all endpoints.
            WITH caps AS (SELECT * FROM unnest($4, $5) AS c(id, cap)),
            leased AS (
              SELECT endpoint_id, count(*) AS n FROM switchboard_webhook_deliveries
              WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until > $1 GROUP BY endpoint_id),
            head AS (
              SELECT d.endpoint_id, d.next_attempt_at FROM switchboard_webhook_deliveries d
              WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
              ORDER BY d.next_attempt_at LIMIT 256),
            picked AS (
              SELECT h.endpoint_id AS id, min(h.next_attempt_at) AS first FROM head h
              LEFT JOIN leased l ON l.endpoint_id = h.endpoint_id
              LEFT JOIN caps c ON c.id = h.endpoint_id
              WHERE COALESCE(l.n, 0) < COALESCE(c.cap, $2)
              GROUP BY h.endpoint_id ORDER BY first, h.endpoint_id LIMIT $3)
            SELECT (SELECT count(*) FROM head)::int AS scanned,
              (SELECT count(DISTINCT endpoint_id) FROM head)::int AS seen,
              (SELECT count(*) FROM switchboard_webhook_endpoints)::int AS endpoints,
              COALESCE((SELECT array_agg(id ORDER BY first, id) FROM picked), '{}') AS ids
            INTO first_look;
            endpoint_ids := first_look.ids;
            IF cardinality(endpoint_ids) < $3 AND first_look.scanned >= 256
               AND first_look.seen < first_look.endpoints THEN
              -- A few endpoints' backlogs fill the head: probe each endpoint's own oldest claimable row.
              WITH caps AS (SELECT * FROM unnest($4, $5) AS c(id, cap)),
              leased AS (
                SELECT endpoint_id, count(*) AS n FROM switchboard_webhook_deliveries
                WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until > $1 GROUP BY endpoint_id),
              probed AS (
                SELECT e.id, first.next_attempt_at FROM switchboard_webhook_endpoints e
                LEFT JOIN leased l ON l.endpoint_id = e.id
                LEFT JOIN caps c ON c.id = e.id
                CROSS JOIN LATERAL (
                  SELECT d.next_attempt_at FROM switchboard_webhook_deliveries d
                  WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= $1
                    AND (d.lease_until IS NULL OR d.lease_until <= $1)
                  ORDER BY d.next_attempt_at, d.id LIMIT 1
                ) first
                WHERE COALESCE(l.n, 0) < COALESCE(c.cap, $2)
                ORDER BY first.next_attempt_at, e.id LIMIT $3)
              SELECT COALESCE(array_agg(id ORDER BY next_attempt_at, id), '{}') FROM probed INTO endpoint_ids;
            END IF;
            IF cardinality(endpoint_ids) = 0 THEN
              RETURN;
            END IF;
            -- Locked in id order, so claimers never deadlock.
            PERFORM 1 FROM switchboard_webhook_endpoints WHERE id = ANY(endpoint_ids) ORDER BY id FOR UPDATE;
            RETURN QUERY
            WITH caps AS (SELECT * FROM unnest($4, $5) AS c(id, cap)),
            leased AS (
              SELECT endpoint_id, count(*) AS n FROM switchboard_webhook_deliveries
              WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until > $1 GROUP BY endpoint_id),
            picked AS (
              SELECT p.id, p.next_attempt_at FROM unnest(endpoint_ids) AS e(id)
              LEFT JOIN leased l ON l.endpoint_id = e.id
              LEFT JOIN caps c ON c.id = e.id
              CROSS JOIN LATERAL (
                SELECT d.id, d.next_attempt_at FROM switchboard_webhook_deliveries d
                WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= $1
                  AND (d.lease_until IS NULL OR d.lease_until <= $1)
                ORDER BY d.next_attempt_at, d.id
                LIMIT GREATEST(0, LEAST($3, COALESCE(c.cap, $2) - COALESCE(l.n, 0)))
                FOR UPDATE OF d SKIP LOCKED
              ) p),
            chosen AS (SELECT id FROM picked ORDER BY next_attempt_at, id LIMIT $3)
            UPDATE switchboard_webhook_deliveries d SET leased_by = $6, lease_until = $7
            FROM chosen WHERE d.id = chosen.id
            RETURNING d.*;
          END
          $claim$;`,
  },
  {
    version: 26,
    name: 'subject and sequence of an event',
    // Each subject's last sequence, one row per subject: appending an event of it takes the row's lock
    // until the write commits, so a subject's events commit in sequence order. Events before have none.
    sql: `CREATE TABLE switchboard_subjects (
            subject text PRIMARY KEY,
            last_sequence bigint NOT NULL
          );
          ALTER TABLE switchboard_outbox ADD COLUMN subject text, ADD COLUMN sequence bigint;`,
  },
  {
    version: 27,
    name: 'the event feed',
    // Relayed events stay (flagged) until the sweep prunes them. A position is given after commit, in
    // turns on the feed's one row (switchboard_place_events): a transaction that commits late gets a
    // later position, so a reader never finds an event before one it has passed (docs/decisions.md).
    // The horizon is the last position pruned. The partial indexes keep claims and placing off history.
    sql: `ALTER TABLE switchboard_outbox ADD COLUMN relayed boolean NOT NULL DEFAULT false,
            ADD COLUMN position bigint;
          CREATE UNIQUE INDEX switchboard_outbox_position_idx ON switchboard_outbox (position);
          CREATE INDEX switchboard_outbox_unplaced_idx ON switchboard_outbox (seq) WHERE position IS NULL;
          CREATE INDEX switchboard_outbox_pending_idx ON switchboard_outbox (seq) WHERE NOT relayed;
          CREATE TABLE switchboard_event_feed (
            one boolean PRIMARY KEY DEFAULT true CHECK (one),
            last_position bigint NOT NULL,
            horizon bigint NOT NULL
          );
          CREATE FUNCTION switchboard_place_events(integer) RETURNS bigint
          LANGUAGE plpgsql VOLATILE AS $place$
          DECLARE
            last bigint;
            placed bigint;
            top bigint;
          BEGIN
            IF NOT EXISTS (SELECT 1 FROM switchboard_outbox WHERE position IS NULL) THEN
              RETURN 0;
            END IF;
            INSERT INTO switchboard_event_feed (last_position, horizon) VALUES (0, 0) ON CONFLICT DO NOTHING;
            -- One placer at a time; each statement after this sees every event committed before the turn.
            SELECT last_position INTO last FROM switchboard_event_feed FOR UPDATE;
            WITH todo AS (
              SELECT seq, row_number() OVER (ORDER BY seq) AS n FROM switchboard_outbox
              WHERE position IS NULL ORDER BY seq LIMIT $1),
            numbered AS (
              UPDATE switchboard_outbox o SET position = last + todo.n FROM todo WHERE o.seq = todo.seq
              RETURNING o.position)
            SELECT count(*), max(position) INTO placed, top FROM numbered;
            -- The highest number given, not the count: the next turn never reuses one.
            IF placed > 0 THEN
              UPDATE switchboard_event_feed SET last_position = top;
            END IF;
            RETURN placed;
          END
          $place$;`,
  },
  {
    version: 28,
    name: 'webhook signing keys and an endpoint signature',
    // The deployment's Ed25519 keys (private_key sealed when the storage has an encryption key); the
    // partial unique index keeps one active key whatever races. Endpoints made before sign with HMAC.
    sql: `CREATE TABLE switchboard_webhook_signing_keys (
            id text COLLATE "C" PRIMARY KEY,
            algorithm text NOT NULL,
            public_key text NOT NULL,
            private_key text NOT NULL,
            created_at bigint NOT NULL,
            expires_at bigint
          );
          CREATE UNIQUE INDEX switchboard_webhook_signing_keys_active_idx
            ON switchboard_webhook_signing_keys ((true)) WHERE expires_at IS NULL;
          ALTER TABLE switchboard_webhook_endpoints ADD COLUMN signature text NOT NULL DEFAULT 'hmac';`,
  },
  {
    version: 29,
    name: 'erasure of a client from the event log, and log retention per endpoint',
    // A delivery names its event's client (owner) so that the client's erasure finds it; deliveries
    // before are given theirs from the outbox while it still holds the event (those it no longer holds
    // cannot be told apart and keep null). erased_at and redacted_at mark tombstones. An endpoint's own
    // log retention in days; null: the storage's.
    sql: `ALTER TABLE switchboard_webhook_deliveries ADD COLUMN owner text, ADD COLUMN erased_at bigint;
          UPDATE switchboard_webhook_deliveries d SET owner = o.owner
            FROM switchboard_outbox o WHERE o.id = d.event_id AND o.owner IS NOT NULL;
          CREATE INDEX switchboard_webhook_deliveries_owner_idx
            ON switchboard_webhook_deliveries (owner) WHERE owner IS NOT NULL;
          ALTER TABLE switchboard_outbox ADD COLUMN redacted_at bigint;
          CREATE INDEX switchboard_outbox_erasure_idx ON switchboard_outbox (owner) WHERE owner IS NOT NULL;
          ALTER TABLE switchboard_webhook_endpoints ADD COLUMN log_retention_days integer;`,
  },
  {
    version: 30,
    name: 'per-endpoint delivery policy',
    // An endpoint's own retry delays, request headers, pace and payload shape; null: the dispatcher's
    // schedule and pace, no headers, the full payload.
    sql: `ALTER TABLE switchboard_webhook_endpoints ADD COLUMN retry_schedule integer[],
            ADD COLUMN headers jsonb, ADD COLUMN max_per_second double precision, ADD COLUMN payload text;`,
  },
  {
    version: 31,
    name: 'ordered webhook delivery per subject',
    // A delivery keeps its event's subject and sequence, an endpoint may ask for `subject` ordering, and
    // the claim (migration 25's, replaced) leases an ordered endpoint's delivery only when nothing
    // earlier of its subject is pending or still in the outbox. The partial indexes answer those two
    // questions without reading history; held_announced_at makes `webhook_subject.held` once per hold.
    sql: `ALTER TABLE switchboard_webhook_deliveries ADD COLUMN subject text, ADD COLUMN sequence bigint,
            ADD COLUMN held_announced_at bigint;
          ALTER TABLE switchboard_webhook_endpoints ADD COLUMN ordering text NOT NULL DEFAULT 'none';
          CREATE INDEX switchboard_webhook_deliveries_subject_idx
            ON switchboard_webhook_deliveries (endpoint_id, subject, sequence)
            WHERE status = 'pending' AND subject IS NOT NULL;
          CREATE INDEX switchboard_outbox_unrelayed_subject_idx
            ON switchboard_outbox (subject, sequence) WHERE NOT relayed AND subject IS NOT NULL;
          CREATE OR REPLACE FUNCTION switchboard_claim_webhook_deliveries(
            bigint, integer, integer, text[], integer[], text, bigint)
          RETURNS SETOF switchboard_webhook_deliveries LANGUAGE plpgsql VOLATILE AS $claim$
          DECLARE
            first_look record;
            endpoint_ids text[];
            ordered text[];
          BEGIN
            -- At most $3 endpoints (4 at least: an ordered endpoint whose oldest due rows are all held
            -- yields nothing, and a claim of one must not come back empty for it), those whose oldest
            -- claimable delivery is oldest, below their cap: first from the 256 oldest claimable rows.
            WITH caps AS (SELECT * FROM unnest($4, $5) AS c(id, cap)),
            leased AS (
              SELECT endpoint_id, count(*) AS n FROM switchboard_webhook_deliveries
              WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until > $1 GROUP BY endpoint_id),
            head AS (
              SELECT d.endpoint_id, d.next_attempt_at FROM switchboard_webhook_deliveries d
              WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
              ORDER BY d.next_attempt_at LIMIT 256),
            picked AS (
              SELECT h.endpoint_id AS id, min(h.next_attempt_at) AS first FROM head h
              LEFT JOIN leased l ON l.endpoint_id = h.endpoint_id
              LEFT JOIN caps c ON c.id = h.endpoint_id
              WHERE COALESCE(l.n, 0) < COALESCE(c.cap, $2)
              GROUP BY h.endpoint_id ORDER BY first, h.endpoint_id LIMIT GREATEST($3, 4))
            SELECT (SELECT count(*) FROM head)::int AS scanned,
              (SELECT count(DISTINCT endpoint_id) FROM head)::int AS seen,
              (SELECT count(*) FROM switchboard_webhook_endpoints)::int AS endpoints,
              COALESCE((SELECT array_agg(id ORDER BY first, id) FROM picked), '{}') AS ids
            INTO first_look;
            endpoint_ids := first_look.ids;
            IF cardinality(endpoint_ids) < $3 AND first_look.scanned >= 256
               AND first_look.seen < first_look.endpoints THEN
              -- A few endpoints' backlogs fill the head: probe each endpoint's own oldest claimable row.
              WITH caps AS (SELECT * FROM unnest($4, $5) AS c(id, cap)),
              leased AS (
                SELECT endpoint_id, count(*) AS n FROM switchboard_webhook_deliveries
                WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until > $1 GROUP BY endpoint_id),
              probed AS (
                SELECT e.id, first.next_attempt_at FROM switchboard_webhook_endpoints e
                LEFT JOIN leased l ON l.endpoint_id = e.id
                LEFT JOIN caps c ON c.id = e.id
                CROSS JOIN LATERAL (
                  SELECT d.next_attempt_at FROM switchboard_webhook_deliveries d
                  WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= $1
                    AND (d.lease_until IS NULL OR d.lease_until <= $1)
                  ORDER BY d.next_attempt_at, d.id LIMIT 1
                ) first
                WHERE COALESCE(l.n, 0) < COALESCE(c.cap, $2)
                ORDER BY first.next_attempt_at, e.id LIMIT GREATEST($3, 4))
              SELECT COALESCE(array_agg(id ORDER BY next_attempt_at, id), '{}') FROM probed INTO endpoint_ids;
            END IF;
            IF cardinality(endpoint_ids) = 0 THEN
              RETURN;
            END IF;
            -- Locked in id order, so claimers never deadlock.
            PERFORM 1 FROM switchboard_webhook_endpoints WHERE id = ANY(endpoint_ids) ORDER BY id FOR UPDATE;
            -- An ordered endpoint's delivery waits for its subject's earlier ones: pending ones (leased or
            -- waiting for a retry), and events not yet relayed (fanned out); read under the endpoint locks,
            -- so a change of ordering has committed or waits. The first pending sequence is read as ORDER
            -- BY … LIMIT 1: the planner then takes the subject index even on the statistics of a quieter
            -- moment (a NOT EXISTS took the endpoint's due index after a burst, a read of every pending row
            -- of the endpoint per candidate). The head and the probe above do not look at holds: a probe
            -- per row there cost a claim a read of every held row.
            SELECT COALESCE(array_agg(id), '{}') FROM switchboard_webhook_endpoints WHERE ordering = 'subject'
            INTO ordered;
            RETURN QUERY
            WITH caps AS (SELECT * FROM unnest($4, $5) AS c(id, cap)),
            leased AS (
              SELECT endpoint_id, count(*) AS n FROM switchboard_webhook_deliveries
              WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until > $1 GROUP BY endpoint_id),
            picked AS (
              SELECT p.id, p.next_attempt_at FROM unnest(endpoint_ids) AS e(id)
              LEFT JOIN leased l ON l.endpoint_id = e.id
              LEFT JOIN caps c ON c.id = e.id
              CROSS JOIN LATERAL (
                SELECT d.id, d.next_attempt_at FROM switchboard_webhook_deliveries d
                WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= $1
                  AND (d.lease_until IS NULL OR d.lease_until <= $1)
                  AND (d.endpoint_id <> ALL(ordered) OR d.sequence IS NULL OR (
                    d.sequence <= (SELECT b.sequence FROM switchboard_webhook_deliveries b
                      WHERE b.endpoint_id = d.endpoint_id AND b.subject = d.subject AND b.status = 'pending'
                      ORDER BY b.sequence LIMIT 1)
                    AND NOT EXISTS (SELECT 1 FROM switchboard_outbox o
                      WHERE o.subject = d.subject AND o.sequence < d.sequence AND NOT o.relayed)))
                ORDER BY d.next_attempt_at, d.id
                LIMIT GREATEST(0, LEAST($3, COALESCE(c.cap, $2) - COALESCE(l.n, 0)))
                FOR UPDATE OF d SKIP LOCKED
              ) p),
            chosen AS (SELECT id FROM picked ORDER BY next_attempt_at, id LIMIT $3)
            UPDATE switchboard_webhook_deliveries d SET leased_by = $6, lease_until = $7
            FROM chosen WHERE d.id = chosen.id
            RETURNING d.*;
          END
          $claim$;`,
  },
];

/** SQL turning a `timestamptz` column into epoch milliseconds (null stays null). */
function epochMs(column: string): string {
  return `floor(extract(epoch FROM ${column}) * 1000)::bigint`;
}
