import type { CatalogueProfile, Expectations, ExpectationOf } from './catalogue-profile.js';
import { pgbouncerSession, pgbouncerTransaction, TRACKED_PARAMETER_120 } from './pgbouncer.js';
import { documented, observed } from './basis.js';
import { decidedOnly } from './observed-on-fixture.js';
import { PGB_121, PGB_122, PGB_124, PGB_125, PGB_126 } from './pgbouncer-docs.js';

/**
 * PgBouncer releases after 1.18, split wherever a release changes a check's outcome. Read from
 * the changelog (NEWS.md of the 1.25.2 tarball) against every check:
 *
 * - 1.20: `track_extra_parameters` (default IntervalStyle only): no check's outcome moves.
 * - 1.21: protocol-level named prepared statements, off by default (max_prepared_statements 0).
 * - 1.22: "Fix handling of empty application_name" (#999): a client that sends none at startup
 *   is no longer shown the previous client's value, so `session/tracked-parameter`'s
 *   application_name goes from leaked (1.18, observed) to tracked (1.25.2, observed); the check
 *   stays leaked for default_transaction_read_only, which no release tracks by default. DEALLOCATE ALL / DISCARD ALL are
 *   handled with max_prepared_statements > 0 (#972): `session/discard-all` stays `missed`
 *   (observed on 1.25.2), since the other session state of the client is still on other servers.
 * - 1.23: SIGTERM waits for clients (#902, the fixture stops 1.25 with SIGQUIT); protocol
 *   version negotiation (#1007): no outcome moves.
 * - 1.24: max_prepared_statements defaults to 200 (#1144): `prepared/protocol-named` works.
 *   Cancel requests ignored while PgBouncer configures the server (#298): `cancel/routing`
 *   stays routed (observed on 1.25.2).
 * - 1.25: `transaction_timeout` (default 0, off) and `query_wait_notify` (a NOTICE after 5 s of
 *   waiting): `capacity/queueing` stays queued (observed).
 * - 1.26: search_path tracked by default (see pgbouncer126Transaction).
 *
 * 1.25.2 runs in the fixtures (built from its release tarball), so its profiles are observed; the
 * profiles of the releases before it are the 1.25.2 observation with each later change undone,
 * and say `documented`.
 */

/** Where the fixtures run these profiles: test/catalogue/compatibility.test.ts runs the columns. */
const ON_1252 = (fixture: string): string =>
  `PgBouncer 1.25.2 built from the release tarball (tag pgbouncer_1_25_2), fixture ${fixture} with a pool of 2, PostgreSQL 15`;

const TRACKED_SINCE_122: ExpectationOf<'session/tracked-parameter'> = {
  outcome: 'leaked',
  ref: `${PGB_122.changelog}#pgbouncer-122x (Fix handling of empty application_name, #999); ${PGB_125.trackExtra} (tracked by default: client_encoding, datestyle, timezone, standard_conforming_strings, application_name, and IntervalStyle through this setting's default)`,
  note: "Observed on 1.25.2 with both observers, the named one and the one that sends no application_name (1.18 showed that one the previous client's value: leaked; the 1.22 changelog's fix #999 is the change between them): every parameter PgBouncer tracks by default follows its client. default_transaction_read_only is not among them: the next client on that server connection reads the previous client's on (leaked), so its writes fail with SQLSTATE 25006; listing it in track_extra_parameters makes it tracked (observed, test/faults/tracked-read-only.test.ts).",
  // IntervalStyle since 1.20 (track_extra_parameters), application_name since 1.22's fix.
  parameters: {
    ...Object.fromEntries(Object.keys(TRACKED_PARAMETER_120.parameters ?? {}).map((p) => [p, 'tracked'])),
    default_transaction_read_only: 'leaked',
  },
};

const LEAKED_BEFORE_122: ExpectationOf<'session/tracked-parameter'> = {
  ...TRACKED_PARAMETER_120,
  ref: `${PGB_121.changelog}#pgbouncer-121x (no change to parameter tracking); ${PGB_122.changelog}#pgbouncer-122x (the fix of empty application_name, #999, came in 1.22)`,
};

const PROTOCOL_OFF: ExpectationOf<'prepared/protocol-named'> = {
  outcome: 'failed',
  ref: `${PGB_121.changelog}#pgbouncer-121x (the new max_prepared_statements must be set to a non-zero value); ${PGB_121.maxPrepared} (0 disables prepared statement support in transaction pooling)`,
  note: 'Set max_prepared_statements > 0 and the outcome becomes works.',
};

const PROTOCOL_ON: ExpectationOf<'prepared/protocol-named'> = {
  outcome: 'works',
  ref: `${PGB_124.features} (Protocol-level prepared plans: Yes, with max_prepared_statements non-zero); ${PGB_124.maxPrepared} (Default: 200); ${PGB_124.changelog}#pgbouncer-124x`,
};

/** 1.18's observed table, as far as a person wrote it up: what no release since changed. */
const T118 = decidedOnly(pgbouncerTransaction.expect);

/** 1.25.2, transaction pooling, default settings (max_prepared_statements = 200): observed. */
export const pgbouncer125Transaction: CatalogueProfile = {
  name: 'pgbouncer-1.25-transaction',
  title: 'PgBouncer 1.25, pool_mode = transaction, max_prepared_statements = 200 (default)',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions:
    '1.25.x with default settings (observed on 1.25.2); with max_prepared_statements = 0 use pgbouncer-1.25-transaction-no-prepared',
  ref: PGB_125.features,
  expect: observed(ON_1252('pgbouncer-1.25-transaction'), {
    ...T118,
    'session/tracked-parameter': TRACKED_SINCE_122,
    'prepared/protocol-named': PROTOCOL_ON,
  }),
};

/** 1.25.2 with max_prepared_statements = 0 (as some hosted services ship it): observed. */
export const pgbouncer125TransactionNoPrepared: CatalogueProfile = {
  name: 'pgbouncer-1.25-transaction-no-prepared',
  title: 'PgBouncer 1.25, pool_mode = transaction, max_prepared_statements = 0',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions: '1.25.x with max_prepared_statements = 0 (observed on 1.25.2)',
  ref: PGB_125.maxPrepared,
  expect: observed(ON_1252('pgbouncer-1.25-transaction-no-prepared'), {
    ...T118,
    'session/tracked-parameter': TRACKED_SINCE_122,
    'prepared/protocol-named': {
      ...PROTOCOL_OFF,
      ref: `${PGB_125.maxPrepared} (0 disables prepared statement support)`,
    },
  }),
};

/** 1.25.2 in session pooling: observed; the same outcomes as 1.18's session pooling. */
export const pgbouncer125Session: CatalogueProfile = {
  name: 'pgbouncer-1.25-session',
  title: 'PgBouncer 1.25, pool_mode = session',
  pooler: 'PgBouncer',
  mode: 'session',
  versions: '1.25.x (observed on 1.25.2)',
  ref: PGB_125.features,
  expect: observed(ON_1252('pgbouncer-1.25-session'), decidedOnly(pgbouncerSession.expect)),
};

/** 1.21.x: protocol-level prepared statements exist but are off; empty application_name not yet fixed. */
export const pgbouncer121Transaction: CatalogueProfile = {
  name: 'pgbouncer-1.21-transaction',
  title: 'PgBouncer 1.21, pool_mode = transaction, max_prepared_statements = 0 (default)',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions:
    '1.21.x with default settings; 1.22 and 1.23: pgbouncer-1.22-transaction; with max_prepared_statements > 0 prepared/protocol-named becomes works',
  ref: PGB_121.features,
  expect: documented({
    ...T118,
    'session/tracked-parameter': LEAKED_BEFORE_122,
    'prepared/protocol-named': PROTOCOL_OFF,
  }),
};

/** 1.22 and 1.23: as 1.21, with the empty application_name fix (#999). */
export const pgbouncer122Transaction: CatalogueProfile = {
  name: 'pgbouncer-1.22-transaction',
  title: 'PgBouncer 1.22 and 1.23, pool_mode = transaction, max_prepared_statements = 0 (default)',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions:
    '1.22.0 to 1.23.x with default settings; with max_prepared_statements > 0 prepared/protocol-named becomes works',
  ref: `${PGB_122.changelog}#pgbouncer-122x`,
  expect: documented({
    ...T118,
    'session/tracked-parameter': TRACKED_SINCE_122,
    'prepared/protocol-named': PROTOCOL_OFF,
  }),
};

/**
 * 1.24 and 1.25: max_prepared_statements defaults to 200. Kept spanning 1.25 (the CI examples
 * gate on it); test/profiles/verified-expectations.test.ts holds its outcomes equal to the
 * observed pgbouncer-1.25-transaction. It expected `tracked` for session/tracked-parameter from
 * the 1.22 fix #999 (application_name) until the check observed default_transaction_read_only,
 * which 1.25.2 leaks as shipped: `leaked` again, for that parameter only.
 */
export const pgbouncer124Transaction: CatalogueProfile = {
  name: 'pgbouncer-1.24-transaction',
  title: 'PgBouncer 1.24 and 1.25, pool_mode = transaction, max_prepared_statements = 200 (default)',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions:
    '1.24.0 to 1.25.x with default settings (Azure and Neon have shipped max_prepared_statements = 0: use pgbouncer-1.25-transaction-no-prepared there)',
  ref: PGB_124.features,
  expect: documented({
    ...T118,
    'session/tracked-parameter': TRACKED_SINCE_122,
    'prepared/protocol-named': PROTOCOL_ON,
  }),
};

/**
 * 1.26 tracks search_path by default. PostgreSQL reports search_path to clients only from
 * version 18 on, and PgBouncer can track only what the server reports, so the outcome of
 * `session/search-path-leak` depends on the server: `tracked` on 18+, `leaked` before (the
 * 1.25.2 fixture with track_extra_parameters = search_path on PostgreSQL 18 shows the first). A
 * profile cannot say which server it will meet, so that check is reported, not asserted.
 */
const { 'session/search-path-leak': _serverDependent, ...BASE_124 } = pgbouncer124Transaction.expect;

export const pgbouncer126Transaction: CatalogueProfile = {
  name: 'pgbouncer-1.26-transaction',
  title: 'PgBouncer 1.26, pool_mode = transaction (search_path tracked by default)',
  pooler: 'PgBouncer',
  mode: 'transaction',
  versions: '1.26.x with default settings',
  ref: `${PGB_126.changelog}#pgbouncer-126x`,
  expect: BASE_124,
};
