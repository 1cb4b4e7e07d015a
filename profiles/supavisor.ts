import type { CatalogueProfile } from './catalogue-profile.js';
import { PG_DOCS } from './postgres-docs.js';

/** "Both transaction and session pool mode behavior for Supavisor is the same as PgBouncer." */
const AS_PGBOUNCER =
  "supabase/supavisor@d421acbe:docs/migrating/pgbouncer.md (transaction mode behaves as PgBouncer's)";
const MODES =
  'supabase/supavisor@e3d07da0:docs/connecting/pool_modes.md (transaction: a connection for the duration of a single transaction)';
/** The DISCARD ALL cleanup exists, but the DbHandler refuses it in transaction mode. */
const NO_RESET = 'supabase/supavisor@b1a15280:lib/supavisor/db_handler.ex (:cleanup "only supported in session mode")';
const LEAKS = `${AS_PGBOUNCER}; ${NO_RESET}`;

/**
 * Supavisor in transaction mode with default feature flags. Its docs defer to PgBouncer's
 * behaviour; its source confirms no reset between clients. No expectation for
 * `tracked-parameter` (no tracked-parameter list is documented or visible in the source),
 * `notify/listen`, `cancel/routing`, `transactions/abandoned` (not documented), `sql-prepare`
 * (passed through in some releases, refused by a parser in recent source; the refusal is tied to
 * the named-prepared-statements feature in the releases that have it) and `on-commit-drop`.
 */
export const supavisorTransaction: CatalogueProfile = {
  name: 'supavisor-transaction',
  title: 'Supavisor, mode_type = transaction (named_prepared_statements flag off, the default)',
  pooler: 'Supavisor',
  mode: 'transaction',
  versions: '2.x with NAMED_PREPARED_STATEMENTS_ENABLED unset (default false)',
  ref: AS_PGBOUNCER,
  expect: {
    'session/set-leak': { outcome: 'leaked', ref: LEAKS, basis: 'documented' },
    'session/search-path-leak': { outcome: 'leaked', ref: LEAKS, basis: 'documented' },
    'session/custom-guc-leak': { outcome: 'leaked', ref: LEAKS, basis: 'documented' },
    'session/role-leak': { outcome: 'leaked', ref: LEAKS, basis: 'documented' },
    'session/set-local': { outcome: 'scoped', ref: `${MODES}; ${PG_DOCS.setLocal}`, basis: 'documented' },
    'session/reset-on-disconnect': {
      outcome: 'leaked',
      ref: NO_RESET,
      note: 'From Supavisor source, not its documentation.',
      basis: 'source',
    },
    'temp/temp-table': { outcome: 'leaked', ref: LEAKS, basis: 'documented' },
    'prepared/protocol-named': {
      outcome: 'failed',
      ref: 'supabase/supavisor@973e813a:config/runtime.exs (named_prepared_statements defaults to NAMED_PREPARED_STATEMENTS_ENABLED=false); supabase/supavisor@a7cf68ff:lib/supavisor/client_handler/protocol_helpers.ex (process_client_packets: statements are translated only with the tenant flag on)',
      note: 'With the flag on (2.7+) statements are renamed and re-prepared per backend, and the outcome should become works.',
      basis: 'source',
    },
    'cursors/with-hold': { outcome: 'leaked', ref: LEAKS, basis: 'documented' },
    'sequences/lastval': { outcome: 'leaked', ref: `${LEAKS}; ${PG_DOCS.sequences}`, basis: 'documented' },
    'locks/advisory-session': { outcome: 'shared', ref: LEAKS, basis: 'documented' },
    'locks/advisory-xact': { outcome: 'exclusive', ref: `${MODES}; ${PG_DOCS.advisoryLocks}`, basis: 'documented' },
    'capacity/queueing': {
      outcome: 'queued',
      ref: 'supabase/supavisor@6f5f40db:docs/configuration/users.md (pool_checkout_timeout: how long a client may wait to check out a connection)',
      basis: 'documented',
    },
    'capacity/multiplexing': { outcome: 'multiplexed', ref: MODES, basis: 'documented' },
    'statement/transaction-block': { outcome: 'allowed', ref: MODES, basis: 'documented' },
  },
};
