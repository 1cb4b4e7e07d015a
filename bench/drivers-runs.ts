/**
 * The stored drivers runs (docs/drivers.json) and the fixture stacks they are columns of:
 * shared by the generator (drivers-table.ts), the compatibility pages (compatibility.ts) and
 * the test that holds the committed pages to the stored runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StackName } from '../fixtures/stack.js';
import type { StoredDriverRuns } from '../reporters/drivers-table.js';

/** The columns of the drivers table, in order; `pending` says why one is not run yet. */
export const DRIVER_STACKS: ReadonlyArray<{ stack: StackName; title?: string; pending?: string }> = [
  { stack: 'direct' },
  { stack: 'pgbouncer-transaction' },
  { stack: 'pgbouncer-session' },
  { stack: 'pgbouncer-1.25-transaction' },
  { stack: 'pgbouncer-1.25-transaction-no-prepared' },
  { stack: 'pgbouncer-1.25-session' },
  { stack: 'odyssey-transaction', title: 'Odyssey 1.5.1 transaction' },
  { stack: 'odyssey-transaction-no-discard', title: 'Odyssey 1.5.1 transaction, pool_discard no' },
  {
    stack: 'odyssey-transaction-no-reserve-prepared',
    title: 'Odyssey 1.5.1 transaction, pool_reserve_prepared_statement no',
  },
  { stack: 'odyssey-session', title: 'Odyssey 1.5.1 session' },
  { stack: 'pgpool' },
  {
    stack: 'pgagroal-transaction',
    pending:
      "pgagroal 1.6.0's transaction pipeline stopped answering during the first driver's configurations in both runs (2026-12-02): every result inconclusive, 'the target stopped answering ... within 20000 ms'; the cause, likely the stuck worker described in fixtures/pgagroal-fixture.ts, is not confirmed for drivers",
  },
  { stack: 'pgagroal-session', title: 'pgagroal 1.6.0 session pipeline' },
];

// Compiled under dist/bench/, or imported from source by a test.
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = existsSync(path.join(HERE, '../package.json'))
  ? path.resolve(HERE, '..')
  : path.resolve(HERE, '../..');
export const DRIVERS_FILES = { json: 'docs/drivers.json', markdown: 'docs/drivers.md' } as const;

/** The stored runs of the repository (or an empty set before the first). */
export function storedDriverRuns(repo = REPO): StoredDriverRuns {
  const file = path.join(repo, DRIVERS_FILES.json);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as StoredDriverRuns) : { columns: [], pending: [] };
}
