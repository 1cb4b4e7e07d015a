import type { Profile } from '../engine/types.js';
import { pgbouncerTransaction, TRACKED_PARAMETER_120 } from './pgbouncer.js';
import { documented } from './basis.js';
import { PGB_121, PGB_124, PGB_126 } from './pgbouncer-docs.js';

/**
 * PgBouncer releases after 1.18 whose changed defaults change a check's outcome in transaction
 * pooling. Everything else is as in 1.18 (still no reset between clients), so each profile is
 * the 1.18 one with the differences written out. Changes that move no outcome get no profile:
 * 1.20's `track_extra_parameters` (default IntervalStyle only), 1.22's DEALLOCATE ALL / DISCARD
 * ALL handling (no settled labels for `session/discard-all` yet), 1.25's `transaction_timeout`
 * (default 0, disabled) and `query_wait_notify` (a NOTICE after 5 s of waiting).
 */
// Observed on 1.18 here; for these releases the same outcomes are what their documentation says.
const BASE = documented({ ...pgbouncerTransaction.expect, 'session/tracked-parameter': TRACKED_PARAMETER_120 });

/** 1.21 to 1.23: protocol-level prepared statements exist, but are off by default. */
export const pgbouncer121Transaction: Profile = {
  name: 'pgbouncer-1.21-transaction',
  title: 'PgBouncer 1.21 to 1.23, pool_mode = transaction, max_prepared_statements = 0 (default)',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions:
    '1.21.0 to 1.23.x with default settings; with max_prepared_statements > 0 expect pgbouncer-1.24-transaction instead',
  ref: PGB_121.features,
  expect: {
    ...BASE,
    'prepared/protocol-named': {
      outcome: 'failed',
      ref: `${PGB_121.changelog}#pgbouncer-121x (the new max_prepared_statements must be set to a non-zero value); ${PGB_121.maxPrepared} (0 disables prepared statement support in transaction pooling)`,
      note: 'Set max_prepared_statements > 0 and the outcome becomes works.',
      basis: 'documented',
    },
  },
};

/** 1.24 and 1.25: max_prepared_statements defaults to 200, so named statements follow the client. */
export const pgbouncer124Transaction: Profile = {
  name: 'pgbouncer-1.24-transaction',
  title: 'PgBouncer 1.24 and 1.25, pool_mode = transaction, max_prepared_statements = 200 (default)',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions:
    '1.24.0 to 1.25.x with default settings (Azure and Neon have shipped max_prepared_statements = 0: use pgbouncer-1.21-transaction there)',
  ref: PGB_124.features,
  expect: {
    ...BASE,
    'prepared/protocol-named': {
      outcome: 'works',
      ref: `${PGB_124.features} (Protocol-level prepared plans: Yes, with max_prepared_statements non-zero); ${PGB_124.maxPrepared} (Default: 200); ${PGB_124.changelog}#pgbouncer-124x`,
      basis: 'documented',
    },
  },
};

/**
 * 1.26 tracks search_path by default. PostgreSQL reports search_path to clients only from
 * version 18 on, and PgBouncer can track only what the server reports, so the outcome of
 * `session/search-path-leak` depends on the server: `tracked` on 18+, `leaked` before. A profile
 * cannot say which server it will meet, so that check is reported, not asserted.
 */
const { 'session/search-path-leak': _serverDependent, ...BASE_124 } = pgbouncer124Transaction.expect;

export const pgbouncer126Transaction: Profile = {
  name: 'pgbouncer-1.26-transaction',
  title: 'PgBouncer 1.26, pool_mode = transaction (search_path tracked by default)',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions: '1.26.x with default settings',
  ref: `${PGB_126.changelog}#pgbouncer-126x`,
  expect: BASE_124,
};
