/**
 * default_transaction_read_only through PgBouncer 1.25.2 in transaction mode: as shipped it is
 * not among the parameters PgBouncer tracks (client_encoding, DateStyle, TimeZone,
 * standard_conforming_strings, application_name, and IntervalStyle through the default of
 * track_extra_parameters), so session/tracked-parameter finds it leaked: the next client on that
 * server connection reads A's `on`. The control is the same PgBouncer with the parameter added to
 * track_extra_parameters, as its documentation suggests: tracked. Both runs leave every server
 * connection writable for the next client, and the sweep clean (the run's marker rides with
 * the switch, engine/sweep/visit-sql.ts).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { poolerBuildUnavailable } from '../../fixtures/pooler-build.js';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startPgBouncer } from '../../fixtures/pgbouncer-fixture.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import { run } from '../../runner/run.js';
import type { CheckResult } from '../../engine/types.js';

const UNAVAILABLE = await poolerBuildUnavailable('pgbouncer');
const SKIP = UNAVAILABLE ? ` (skipped: ${UNAVAILABLE})` : '';
const ID = 'session/tracked-parameter';

let postgres: PostgresFixture | undefined;
beforeAll(async () => {
  if (UNAVAILABLE === null) postgres = await startPostgres();
}, 120_000);
afterAll(async () => {
  await postgres?.stop();
});

/** Runs the check through PgBouncer 1.25.2 (transaction mode, pool of 2) with `settings`. */
async function runThrough(
  settings: Record<string, string>,
): Promise<{ check: CheckResult; writable: boolean[]; sweepClean: boolean | null }> {
  const bouncer: PoolerFixture = await startPgBouncer(postgres!, {
    poolMode: 'transaction',
    build: 'source',
    settings,
  });
  try {
    const report = await run({ target: bouncer.url(), direct: postgres!.url(), only: [ID] });
    return {
      check: report.checks[0]!,
      writable: await writableBackends(bouncer),
      sweepClean: report.sweep?.clean ?? null,
    };
  } finally {
    await bouncer.stop();
  }
}

/** Whether each of two clients at once (so both server connections) starts a writable transaction. */
async function writableBackends(bouncer: PoolerFixture): Promise<boolean[]> {
  const clients = [0, 1].map(() => new pg.Client({ connectionString: bouncer.url(), connectionTimeoutMillis: 5_000 }));
  for (const c of clients) c.on('error', () => undefined);
  try {
    await Promise.all(clients.map((c) => c.connect()));
    await Promise.all(clients.map((c) => c.query('BEGIN')));
    const ro = await Promise.all(
      clients.map((c) => c.query<{ ro: string }>("SELECT current_setting('transaction_read_only') AS ro")),
    );
    await Promise.all(clients.map((c) => c.query('COMMIT')));
    return ro.map((r) => r.rows[0]?.ro === 'off');
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}

describe.skipIf(UNAVAILABLE !== null)(
  `PgBouncer 1.25.2, transaction mode: default_transaction_read_only${SKIP}`,
  () => {
    test('as shipped: leaked (the next client on that server connection reads on), nothing left behind', async () => {
      const { check, writable, sweepClean } = await runThrough({});
      expect(check.facts['default_transaction_read_only.outcome'], check.reason).toBe('leaked');
      expect(check.facts['default_transaction_read_only.named.seen']).toBe('on');
      expect(check.outcome).toBe('leaked');
      expect(writable).toEqual([true, true]);
      expect(sweepClean).toBe(true);
    });

    test('control: listed in track_extra_parameters, it is tracked (A keeps it, nobody else reads it)', async () => {
      const { check, writable, sweepClean } = await runThrough({
        track_extra_parameters: 'IntervalStyle, default_transaction_read_only',
      });
      expect(check.facts['default_transaction_read_only.outcome'], check.reason).toBe('tracked');
      expect(check.facts['default_transaction_read_only.named.seen']).toBe('off');
      expect(writable).toEqual([true, true]);
      expect(sweepClean).toBe(true);
    });
  },
);
