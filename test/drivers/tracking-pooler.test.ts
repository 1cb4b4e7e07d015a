/**
 * Drivers through a pooler that tracks protocol-level prepared statements (PgBouncer 1.25.2
 * with its default max_prepared_statements = 200, built from its release tarball): named
 * statements follow their client, so every configuration of a driver works, the second as well
 * as the first.
 *
 * Regression: every configuration after a driver's first one failed at its first use with
 * 26000 `prepared statement "PGBOUNCER_N" does not exist`. The first configuration's cleanup
 * had deallocated, with the driver's statements, PgBouncer's own server-side copy of the same
 * text; PgBouncer still took it for prepared when the next configuration sent that text again.
 * Each configuration's statements now carry a marker of their own.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { poolerBuildUnavailable } from '../../fixtures/pooler-build.js';
import { runCli } from '../support/cli.js';

const UNAVAILABLE = await poolerBuildUnavailable('pgbouncer');

test.skipIf(UNAVAILABLE !== null)(
  `PgBouncer 1.25.2 tracking prepared statements: asyncpg's and node-postgres' configurations all work, each after the others${UNAVAILABLE ? ` (skipped: ${UNAVAILABLE})` : ''}`,
  async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-drivers-'));
    const file = path.join(dir, 'drivers.json');
    let results: Array<{ id: string; outcome: string | null; reason: string }> = [];
    try {
      const run = await runCli(
        // The statements' phases only: the batch is not about named statements, and asyncpg's
        // executemany outside a transaction can fail here whatever the tracking does (the
        // unnamed statement it prepares in one round trip is gone on the backend of the next:
        // 26000 "unnamed prepared statement does not exist", seen in one run of two).
        [
          'drivers',
          '--stack',
          'pgbouncer-1.25-transaction',
          '--driver',
          'asyncpg,node-postgres',
          '--scenario',
          'moved,collision,cursor',
          '--json',
          file,
        ],
        { timeoutMs: 150_000 },
      );
      expect(run.code, run.stderr).toBe(0);
      results = (JSON.parse(readFileSync(file, 'utf8')) as { results: typeof results }).results;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // asyncpg names the same statement texts first, in each of its configurations; then
    // node-postgres, unnamed and named. Every scenario of every configuration works.
    const ran = results.filter((r) => r.id.startsWith('asyncpg/') || r.id.startsWith('node-postgres/'));
    expect(ran.map((r) => r.id)).toEqual(
      expect.arrayContaining(['asyncpg/cursor@statement_cache_size=0', 'node-postgres/moved@named']),
    );
    expect(ran.filter((r) => r.outcome !== 'works').map((r) => `${r.id}: ${r.outcome} (${r.reason})`)).toEqual([]);
  },
  180_000,
);
