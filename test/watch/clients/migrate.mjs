// A real migration run: node-pg-migrate's programmatic runner against DATABASE_URL (set by
// `pooltest watch`), with the migrations folder given as the first argument. It takes a session
// advisory lock in one transaction, migrates in others and unlocks at the end.
import { runner } from 'node-pg-migrate';

const dir = process.argv[2];
await runner({
  databaseUrl: process.env.DATABASE_URL,
  dir,
  direction: 'up',
  migrationsTable: 'pgmigrations',
  schema: process.argv[3] ?? 'public',
  createSchema: true,
  log: () => undefined,
});
console.log('migrated');
