/**
 * Schema of the live side: users seen by widgets, rooms, members, messages
 * and the flow runner's state.
 *
 * - `rooms.last_seq` is the room's sequence counter: a message takes
 *   `last_seq + 1` in the same statement that inserts it, so the row lock of
 *   the UPDATE orders concurrent writers of one room (on PostgreSQL across
 *   processes, too).
 * - `rooms.room_key` makes bot rooms (`bot:<botId>:<userId>`) and direct rooms
 *   (a hash of the company and the sorted pair) unique, so "created once, found
 *   again afterwards" holds even when two requests race.
 * - `messages.id` (the client-made UUID) is the primary key: the idempotency key.
 */
import type { Migration } from '../store/migrate.ts';

export const liveMigrations: Migration[] = [
  {
    id: '010_live',
    sql: `
CREATE TABLE IF NOT EXISTS live_users (
  company_id text NOT NULL,
  id text NOT NULL,
  names text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id)
);
CREATE TABLE IF NOT EXISTS rooms (
  id text PRIMARY KEY,
  company_id text NOT NULL,
  bot_id text,
  type text NOT NULL,
  name text NOT NULL DEFAULT '',
  avatar_url text,
  channel text NOT NULL DEFAULT 'web',
  channel_provider text NOT NULL DEFAULT 'charla',
  deleted boolean NOT NULL DEFAULT false,
  room_key text UNIQUE,
  last_seq bigint NOT NULL DEFAULT 0,
  last_message_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS room_members (
  room_id text NOT NULL REFERENCES rooms(id),
  user_id text NOT NULL,
  id text NOT NULL UNIQUE,
  names text,
  legal_id text,
  member_type text NOT NULL DEFAULT 'Client',
  bot_id text,
  company_id text NOT NULL,
  socket_id text,
  unread integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (room_id, user_id)
);
CREATE INDEX IF NOT EXISTS room_members_user ON room_members (user_id);
CREATE TABLE IF NOT EXISTS messages (
  id text PRIMARY KEY,
  room_id text NOT NULL REFERENCES rooms(id),
  seq bigint NOT NULL,
  sender_id text NOT NULL,
  status text NOT NULL,
  body jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (room_id, seq)
);
CREATE TABLE IF NOT EXISTS flow_states (
  room_id text NOT NULL,
  user_id text NOT NULL,
  bot_id text NOT NULL,
  flow_id text NOT NULL,
  step_id text,
  waiting boolean NOT NULL DEFAULT false,
  params jsonb NOT NULL DEFAULT '{}',
  answers jsonb NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (room_id, user_id)
);
`,
  },
  {
    id: '011_live_indexes',
    sql: `
CREATE INDEX IF NOT EXISTS room_members_socket ON room_members (socket_id) WHERE socket_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS flow_states_bot ON flow_states (bot_id);
`,
  },
  {
    // Identity verification: each API key gets a secret the business's backend
    // signs user ids with (HMAC-SHA256). Keys issued before this migration get
    // one from two random UUIDs (244 random bits); new keys get 32 random bytes.
    id: '012_identity_secret',
    sql: `
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS identity_secret text;
UPDATE api_keys SET identity_secret = 'cis_' || replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')
  WHERE identity_secret IS NULL;
`,
  },
  {
    // A direct conversation stays between its two people: when a third person
    // makes it a group, what was said before (seq <= private_until_seq) is not
    // shown to anyone who joins from then on (room_members.since_seq).
    id: '013_history_since_join',
    sql: `
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS private_until_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE room_members ADD COLUMN IF NOT EXISTS since_seq bigint NOT NULL DEFAULT 0;
`,
  },
];
