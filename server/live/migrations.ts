/** Schema of the live side: rooms, members, messages. (Filled in by the live work.) */
import type { Migration } from '../store/migrate.ts';

export const liveMigrations: Migration[] = [];
