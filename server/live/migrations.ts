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
 * - `live_users.verified`: the user id once opened a session proven by its
 *   userHash on a widget that verifies identities; every later session of it,
 *   on any widget of the company, must prove it too.
 * - `room_removals`: who was taken out of a room by another member (they may
 *   not join it again by themselves until a member adds them back).
 * - `media_rooms`: the rooms a stored media was uploaded for or sent in (who
 *   may have its address signed afresh); `media.uploaded_by` the widget user
 *   who uploaded it.
 * - `media_chunks`: a media file's bytes, 256 KB a row (server/media-store.ts).
 * - `media.sent_at`: when a stored message first carried the upload (null: never yet); uploads
 *   no message carries are removed a day after (media-rooms.ts, sweepUnsentUploads).
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
  {
    // Users are per company, not per widget: a user id proven once on a widget that verifies
    // identities must be proven on every widget of the company, or any other widget would open it.
    id: '014_verified_users',
    sql: `
ALTER TABLE live_users ADD COLUMN IF NOT EXISTS verified boolean NOT NULL DEFAULT false;
`,
  },
  {
    // Removal by another member sticks: the removed user's own joinRoom is refused until a member adds them.
    id: '015_room_removals',
    sql: `
CREATE TABLE IF NOT EXISTS room_removals (
  room_id text NOT NULL REFERENCES rooms(id),
  user_id text NOT NULL,
  removed_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (room_id, user_id)
);
`,
  },
  {
    // A widget session may refresh only media it could see: those of its rooms, and its own uploads.
    // Uploads already sent in rooms stay refreshable there (who sent them, and whether they
    // could see them, was not kept): the rooms are read from the messages that carry them.
    id: '016_media_rooms',
    sql: `
ALTER TABLE media ADD COLUMN IF NOT EXISTS uploaded_by text;
CREATE TABLE IF NOT EXISTS media_rooms (
  media_key text NOT NULL,
  room_id text NOT NULL REFERENCES rooms(id),
  PRIMARY KEY (media_key, room_id)
);
INSERT INTO media_rooms (media_key, room_id)
  SELECT DISTINCT m.key, x.room_id FROM (
    SELECT room_id, substring(body->>'mediaUrl' from '/v1/media/(widget/[0-9A-Fa-f-]{36})([?#]|$)') AS key
    FROM messages WHERE body->>'mediaUrl' IS NOT NULL
  ) x
  JOIN media m ON m.key = x.key
  JOIN rooms r ON r.id = x.room_id AND r.company_id = m.company_id
  ON CONFLICT (media_key, room_id) DO NOTHING;
`,
  },
  {
    // The messages a flow sent the user (the latest 100 ids): a POSTBACK answering another
    // message (one the business sent over the HTTP API) is not the flow's to answer.
    // (A first version kept only the waiting step's message, waiting_for: dropped.)
    id: '017_flow_sent',
    sql: `
ALTER TABLE flow_states ADD COLUMN IF NOT EXISTS sent jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE flow_states DROP COLUMN IF EXISTS waiting_for;
`,
  },
  {
    // A media file's bytes in pieces of 256 KB (server/media-store.ts says why); files stored
    // before are moved into pieces here, and media.data stays only for rows written without them.
    id: '018_media_chunks',
    sql: `
CREATE TABLE IF NOT EXISTS media_chunks (
  media_key text NOT NULL,
  seq integer NOT NULL,
  data bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (media_key, seq)
);
ALTER TABLE media ALTER COLUMN data DROP NOT NULL;
INSERT INTO media_chunks (media_key, seq, data)
  SELECT m.key, g.i, substring(m.data FROM g.i * 262144 + 1 FOR 262144)
  FROM media m CROSS JOIN LATERAL generate_series(0, (length(m.data) - 1) / 262144) AS g(i)
  WHERE m.data IS NOT NULL AND length(m.data) > 0
  ON CONFLICT (media_key, seq) DO NOTHING;
UPDATE media SET data = NULL WHERE data IS NOT NULL AND length(data) > 0;
`,
  },
  {
    // When a message first carried a widget upload: an upload never sent (the visitor cancelled,
    // or left) is removed a day later. Every file stored before is taken as sent, so kept.
    id: '019_upload_sent',
    sql: `
ALTER TABLE media ADD COLUMN IF NOT EXISTS sent_at timestamptz;
UPDATE media SET sent_at = created_at WHERE sent_at IS NULL;
CREATE INDEX IF NOT EXISTS media_unsent_uploads ON media (created_at)
  WHERE sent_at IS NULL AND uploaded_by IS NOT NULL;
`,
  },
];
