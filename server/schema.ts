/**
 * Every migration of the service's schema: what buildApp applies at each start (migrate runs
 * those not yet recorded, in id order). One list, so the tests' schema template
 * (test/pglite-template.ts) is the schema a start would make.
 */
import { coreMigrations } from './store/core-migrations.ts';
import { liveMigrations } from './live/migrations.ts';
import { signingKeyMigrations } from './signing-keys.ts';
import type { Migration } from './store/migrate.ts';

export const SCHEMA_MIGRATIONS: readonly Migration[] = [
  ...coreMigrations,
  ...liveMigrations,
  ...signingKeyMigrations,
];
