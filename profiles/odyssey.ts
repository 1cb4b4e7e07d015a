import type { Profile } from '../engine/types.js';
import { NAMELESS_NOTE } from './basis.js';
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

/**
 * Odyssey in transaction pooling with the rule defaults of its code. Every detach resets the
 * server, so session state is lost rather than leaked, and parameters Odyssey learns from the
 * server are re-deployed per client (`maintain_params`). No expectation for
 * `search-path-leak` (PostgreSQL 18+ reports search_path, so whether Odyssey re-deploys it depends
 * on the server), `sql-prepare` (with prepared statements reserved, the reset may skip
 * DEALLOCATE ALL), `on-commit-drop`, `cancel/routing` (not documented).
 */
export const odysseyTransaction: Profile = {
  name: 'odyssey-transaction',
  title: 'Odyssey, pool "transaction" (rule defaults: pool_discard, pool_rollback, pool_cancel, maintain_params on)',
  pooler: 'Odyssey',
  mode: 'transaction',
  versions:
    '1.4 to 1.5; prepared/protocol-named needs pool_reserve_prepared_statement, on by default since yandex/odyssey#1174',
  ref: POOLING,
  expect: {
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
      outcome: 'tracked',
      ref: `${RULES} (maintain_params: values defined by the client are deployed on server attach)`,
      note: NAMELESS_NOTE,
      basis: 'documented',
    },
    'session/set-local': {
      outcome: 'scoped',
      ref: `${POOLING} (a server connection is assigned for a transaction); ${PG_DOCS.setLocal}`,
      basis: 'documented',
    },
    'session/reset-on-disconnect': { outcome: 'reset', ref: DISCARD, basis: 'source' },
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
  },
};
