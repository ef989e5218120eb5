/**
 * The demo's well-known values, the same the seed (server/seed.ts) creates.
 * Public on purpose: a demo key only works against a service seeded with it.
 */
export const DEMO_BOT_ID = 'demo-bot';
export const DEMO_NORMAL_API_KEY = 'demo-normal-widget-key-0000000000000000';
export const DEMO_GROUP_API_KEY = 'demo-group-widget-key-00000000000000000';
/** The dev console's default Basic credentials (the service's demo defaults). */
export const DEMO_CLIENT_ID = 'demo-client';
export const DEMO_CLIENT_SECRET = 'demo-secret';

export interface DemoUser {
  id: string;
  names: string;
  color: string;
}

/** The group demo's users (seeded as users too). */
export const DEMO_USERS: DemoUser[] = [
  { id: 'alice', names: 'Alice Martín', color: '#db2777' },
  { id: 'bob', names: 'Bob Ruiz', color: '#2563eb' },
  { id: 'carol', names: 'Carol Díaz', color: '#059669' },
  { id: 'dave', names: 'Dave Pérez', color: '#d97706' },
];
