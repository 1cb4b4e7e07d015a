/**
 * Expected driver outcomes per pooler (`pooltest drivers --profile NAME`), as `--expect` takes
 * them. `direct`: without a pooler every configuration works (a connection keeps its backend).
 * `pgbouncer-transaction`: observed on the fixtures (PgBouncer 1.18.0, Debian 12 package,
 * transaction mode, pool of 2; docs/drivers.md), where PgBouncer tracks no protocol-level
 * prepared statements (max_prepared_statements exists only since 1.21).
 */
import { DRIVERS, phasesOf } from './catalogue.js';
import { DRIVER_SCENARIOS } from './judge.js';
import { resultId } from './ids.js';

/** `null`: no expectation, for a result that is observed to vary between runs (see where it is used). */
type Outcomes = Partial<
  Record<(typeof DRIVER_SCENARIOS)[number], 'works' | 'retried' | 'failed' | 'stalled' | 'split' | null>
>;

/** Outcomes other than `works` through PgBouncer 1.18 transaction mode, per driver and configuration. */
const PGBOUNCER_118_TRANSACTION: Record<string, Record<string, Outcomes>> = {
  // batch: a later batch reuses the statement its driver named in an earlier one, on the other
  // backend (observed 2026-12-06, in batch 1 to 4 of 8).
  asyncpg: {
    default: { moved: 'failed', collision: 'failed', cursor: 'failed', batch: 'failed' },
    // executemany prepares the unnamed statement and waits for its description (one Sync),
    // then sends every Bind/Execute: a move between the two is 26000 "unnamed prepared statement
    // does not exist". Seen in one run of two; the other run's 8 batches were not moved there.
    'statement_cache_size=0': { batch: null },
  },
  psycopg: { default: { moved: 'failed', collision: 'failed', batch: 'failed' } },
  pgjdbc: {
    default: { moved: 'retried', collision: 'failed', cursor: 'failed', batch: 'failed' },
    'default, autocommit off': { moved: 'retried', collision: 'failed', cursor: 'retried', batch: 'failed' },
    // Failed in batch 8 of 8 in both runs: pgjdbc names the rewritten INSERT after its 5th use.
    'reWriteBatchedInserts=true': { batch: 'failed' },
  },
  'ruby-pg': { prepare: { moved: 'failed', collision: 'failed', batch: 'failed' } },
  'node-postgres': { named: { moved: 'failed', collision: 'failed' } },
  // collision: B's first prepare lands on A's backend or on the other one, and postgres.js
  // retries its own 26000 without telling: with the server log read (`--stack`, `--server-log`)
  // the same pooler gave `works` in one run and `retried` in the next, so no label is promised.
  // batch: PgBouncer gives the server back at each pipelined query's Sync, the next query's
  // Bind meets 26000 on the other backend, and postgres.js's retry never answers: stalled.
  'postgres.js': { default: { moved: 'retried', collision: null, cursor: 'failed', batch: 'stalled' } },
  // pgx's batch through this pooler was not yet run when the profile was written: no label promised.
  pgx: { default: { moved: 'failed', collision: 'failed', batch: null } },
  // collision: B's prepare of pdo_stmt_00000001 meets A's on b1 (42P05); PDO deallocates A's
  // and prepares again without telling: `retried` with the server log read, `works` without.
  'pdo-pgsql': { default: { moved: 'failed', collision: null } },
  activerecord: {
    default: { moved: 'failed', collision: 'failed', migration: 'failed' },
    'advisory_locks=false': { moved: 'failed', collision: 'failed' },
  },
  django: { default: { cursor: 'failed' } },
  // collision: B's login itself collides (the dialect prepares its own statements at connect,
  // 42P05 on A's __asyncpg_stmt_N__), and where that login ran is not recorded: inconclusive.
  // The documented cache setting still names a statement per execution: B collides.
  sqlalchemy: {
    default: { moved: 'failed', collision: null },
    'prepared_statement_cache_size=0': { collision: 'failed' },
  },
};

function expectations(exceptions: Record<string, Record<string, Outcomes>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of DRIVERS)
    for (const c of d.configs)
      for (const s of phasesOf(d, c)) {
        const want = exceptions[d.id]?.[c.name]?.[s];
        if (want === null) continue;
        out[resultId(d.id, s, c.name)] = want ?? 'works';
      }
  return out;
}

export const DRIVER_PROFILES: Record<string, () => Record<string, string>> = {
  direct: () => expectations({}),
  'pgbouncer-transaction': () => expectations(PGBOUNCER_118_TRANSACTION),
};
