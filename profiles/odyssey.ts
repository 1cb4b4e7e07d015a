import type { CatalogueProfile } from './catalogue-profile.js';
import { observed } from './basis.js';
import { decidedOnly } from './observed-on-fixture.js';
import { pgbouncerSession } from './pgbouncer.js';
import { PG_DOCS } from './postgres-docs.js';

const POOLING = 'yandex/odyssey@62c5a0cb:docs/features/pooling.md';
const RULES = 'yandex/odyssey@9e896a98:docs/configuration/rules.md';
/**
 * The docs describe `pool_discard` ("DISCARD ALL and reset client parameters before using server
 * from the pool") but their example shows `pool_discard no` and states no default; the rule code
 * defaults it to yes, and `od_reset` runs at every detach, which in transaction pooling is the end
 * of every transaction.
 */
const DISCARD = `${RULES} (pool_discard); yandex/odyssey@8ba1e233:sources/pool.c (od_rule_pool_alloc: discard = 1); yandex/odyssey@24c4863e:sources/reset.c (od_reset: ROLLBACK if needed, then DISCARD ALL)`;
const DISCARD_NOTE =
  'pool_discard defaults to yes in the code, not in the docs; with pool_discard no (as in the sample config) the state stays on the server and the outcome becomes leaked.';

/** Where the fixtures run these profiles (test/catalogue/compatibility.test.ts runs the columns). */
const ON_151 = (fixture: string): string =>
  `Odyssey 1.5.1 built from the release tarball (tag v1.5.1), fixture ${fixture} with pool_size 2, PostgreSQL 15`;

/** With pool_reserve_prepared_statement on (the default), pool_discard is replaced by smart discard. */
const SMART =
  'yandex/odyssey@v1.5.1:sources/rules.c (replace pool_discard with pool_smart_discard due to prepared statements reserving)';

/**
 * Odyssey in transaction pooling with the rule defaults of its code. Every detach resets the
 * server, so session state is lost rather than leaked, and parameters Odyssey learns from the
 * server are re-deployed per client (`maintain_params`). No expectation for
 * `search-path-leak` (PostgreSQL 18+ reports search_path, so whether Odyssey re-deploys it depends
 * on the server), `sql-prepare` (with prepared statements reserved, the reset may skip
 * DEALLOCATE ALL), `on-commit-drop`, `cancel/routing` (not documented).
 */
export const odysseyTransaction: CatalogueProfile = {
  name: 'odyssey-transaction',
  title: 'Odyssey, pool "transaction" (rule defaults: pool_discard, pool_rollback, pool_cancel, maintain_params on)',
  pooler: 'Odyssey',
  mode: 'transaction',
  versions:
    '1.5.1 observed (rule defaults); 1.4 documented; prepared/protocol-named needs pool_reserve_prepared_statement, on by default since yandex/odyssey#1174',
  ref: POOLING,
  expect: observed(ON_151('odyssey-transaction'), {
    'session/set-leak': {
      outcome: 'lost',
      ref: `${POOLING} (session variables are not supported); ${DISCARD}`,
      note: DISCARD_NOTE,
      basis: 'source',
    },
    'session/custom-guc-leak': { outcome: 'lost', ref: DISCARD, note: DISCARD_NOTE, basis: 'source' },
    'session/role-leak': {
      outcome: 'lost',
      ref: `${DISCARD}; ${RULES} (pool_discard_string: SET SESSION AUTHORIZATION DEFAULT; RESET ALL)`,
      note: DISCARD_NOTE,
      basis: 'source',
    },
    'session/tracked-parameter': {
      outcome: 'lost',
      ref: `${RULES} (maintain_params: values defined by the client are deployed on server attach)`,
      note: "Observed on 1.5.1 parameter by parameter: application_name, TimeZone, DateStyle, client_encoding and standard_conforming_strings follow their client (tracked, with both observers), but IntervalStyle is reset by the discard at detach and not deployed again on the next attach (lost): the client's SET IntervalStyle is gone at its next transaction. default_transaction_read_only follows its client too (tracked). The documentation's maintain_params does not say which parameters it covers.",
      parameters: {
        application_name: 'tracked',
        timezone: 'tracked',
        datestyle: 'tracked',
        intervalstyle: 'lost',
        client_encoding: 'tracked',
        standard_conforming_strings: 'tracked',
        default_transaction_read_only: 'tracked',
      },
    },
    'session/set-local': {
      outcome: 'scoped',
      ref: `${POOLING} (a server connection is assigned for a transaction); ${PG_DOCS.setLocal}`,
      basis: 'documented',
    },
    'session/reset-on-disconnect': {
      outcome: 'leaked',
      ref: `${DISCARD}; ${SMART}`,
      note: 'Overturned by observation: the source reading said reset, but with pool_reserve_prepared_statement on (the default) the discard is a smart discard, and state a client left behind when it disconnected reached the next client on 1.5.1. With pool_reserve_prepared_statement no the outcome is reset.',
    },
    'session/discard-all': {
      outcome: 'reset',
      ref: `${DISCARD}; ${SMART}`,
      note: "Observed: unlike PgBouncer (missed), the client's DISCARD ALL finds its state, which the reset at every detach already cleared.",
    },
    'session/lock-timeout-leak': { outcome: 'lost', ref: DISCARD, note: DISCARD_NOTE },
    'session/search-path-leak': {
      outcome: 'lost',
      ref: DISCARD,
      note: 'Observed on PostgreSQL 15, which does not report search_path; on 18+ maintain_params may re-deploy it.',
    },
    'prepared/sql-prepare': {
      outcome: 'leaked',
      ref: SMART,
      note: 'Observed: the smart discard keeps prepared statements on the server (it skips DEALLOCATE ALL), so an SQL PREPARE reaches the next client; with pool_reserve_prepared_statement no it is lost.',
    },
    'temp/on-commit-drop': { outcome: 'works', ref: POOLING },
    'cancel/routing': { outcome: 'routed', ref: `${RULES} (pool_cancel: yes by default)` },
    'temp/temp-table': {
      outcome: 'lost',
      ref: `${POOLING} (temporary tables are not supported); ${DISCARD}`,
      note: DISCARD_NOTE,
      basis: 'source',
    },
    'prepared/protocol-named': {
      outcome: 'works',
      ref: `${POOLING} (prepared statements support: pool_reserve_prepared_statement yes); https://github.com/yandex/odyssey/pull/1174 (on by default)`,
      note: 'Releases before yandex/odyssey#1174 need pool_reserve_prepared_statement yes; without it the outcome is failed.',
      basis: 'documented',
    },
    'cursors/with-hold': {
      outcome: 'lost',
      ref: `${DISCARD}; ${RULES} (pool_discard_string: CLOSE ALL)`,
      note: DISCARD_NOTE,
      basis: 'source',
    },
    'sequences/lastval': {
      outcome: 'lost',
      ref: `${DISCARD}; ${RULES} (pool_discard_string: DISCARD SEQUENCES)`,
      note: DISCARD_NOTE,
      basis: 'source',
    },
    'locks/advisory-session': {
      outcome: 'released',
      ref: `${DISCARD}; ${RULES} (pool_discard_string: SELECT pg_advisory_unlock_all())`,
      note: DISCARD_NOTE,
      basis: 'source',
    },
    'locks/advisory-xact': {
      outcome: 'exclusive',
      ref: `${POOLING} (a server connection is assigned for a transaction); ${PG_DOCS.advisoryLocks}`,
      basis: 'documented',
    },
    'notify/listen': {
      outcome: 'dropped',
      ref: `${DISCARD}; ${RULES} (pool_discard_string: UNLISTEN *)`,
      note: DISCARD_NOTE,
      basis: 'source',
    },
    'transactions/abandoned': {
      outcome: 'rolled-back',
      ref: `${RULES} (pool_rollback: ROLLBACK if the server is left in a transaction); yandex/odyssey@8ba1e233:sources/pool.c (rollback = 1)`,
      basis: 'source',
    },
    'capacity/queueing': {
      outcome: 'queued',
      ref: `${RULES} (pool_size: clients are put in a wait queue when all servers are busy; pool_timeout = 0 disables the wait limit)`,
      basis: 'documented',
    },
    'capacity/multiplexing': {
      outcome: 'multiplexed',
      ref: `${POOLING} (transaction pooling multiplexes many clients over fewer backends)`,
      basis: 'documented',
    },
    'statement/transaction-block': { outcome: 'allowed', ref: RULES, basis: 'documented' },
  }),
};

/**
 * Odyssey in session pooling: each client keeps its server connection; the reset runs when it
 * leaves. Observed: the same outcomes as PgBouncer 1.18 and 1.25 in session pooling, check by check.
 */
export const odysseySession: CatalogueProfile = {
  name: 'odyssey-session',
  title: 'Odyssey, pool "session" (rule defaults; prepared statement reserving is off in session pooling)',
  pooler: 'Odyssey',
  mode: 'session',
  versions: '1.5.1 observed',
  ref: POOLING,
  expect: observed(
    ON_151('odyssey-session'),
    Object.fromEntries(
      Object.entries(decidedOnly(pgbouncerSession.expect)).map(([id, e]) => [
        id,
        {
          outcome: e.outcome,
          ref: `${POOLING} (session pooling: a server connection is assigned for the whole client session); ${DISCARD}`,
        },
      ]),
    ),
  ),
};
