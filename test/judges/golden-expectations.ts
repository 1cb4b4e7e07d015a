/**
 * What every recorded log (test/recorded/*.json) must judge to, written by hand from the
 * recorded steps, each with the one line of the record that decides it. These are not the
 * outcomes the judges wrote when the logs were recorded: a judge that drifts, or a log that was
 * recorded by a wrong judge, fails golden.test.ts against this table. Pids are the ones in the
 * files; "b1" is A's backend at A.create.
 */

/** Expected outcome (null: inconclusive) and why, per check id. */
export type Golden = Record<string, [outcome: string | null, why: string]>;

const directState: Golden = {
  'session/search-path-leak': [
    'session',
    'O1 took another backend (32660) and saw the default path; A read its own schema back on 32659',
  ],
  'session/custom-guc-leak': [
    'session',
    'both phases: O1 on a new backend saw "", A read its marker back on its own backend',
  ],
  'session/role-leak': ['session', 'O1 on 32666 saw role pooltest; A still pooltest_reader on 32665'],
  'session/reset-on-disconnect': [
    'reset',
    "A disconnected; observe.gone shows A's backend 32673 no longer alive, O1's backend counts 0 of everything",
  ],
  'session/discard-all': ['reset', 'both phases: A read "" back on its own backend after DISCARD ALL / RESET ALL'],
  'temp/on-commit-drop': ['works', 'A read n=1 inside the transaction and survived=false after commit, on one backend'],
  'locks/advisory-xact': ['exclusive', 'B.try got=false while A held it; B.after got=true once A committed'],
  'prepared/protocol-named': ['works', "A's named statement answered 42 twice on 32662; O1 elsewhere had visible=0"],
  'cursors/with-hold': ['session', 'O1 on another backend saw no cursor; A fetched v=1 on its own'],
  'sequences/lastval': ['session', "A's readback returned the value it made, on its own backend"],
};

/**
 * Session pooling (PgBouncer session mode, pgpool-II): A keeps b1; one observer lands on the
 * other backend, the next gets none in time ("queued": PgBouncer queues the query, pgpool-II
 * the connection) while the probe shows b1 quiet, which is the proof b1 was kept for A.
 */
const sessionPoolState: Golden = {
  'session/search-path-leak': [
    'session',
    "O1 got the other backend and saw the default path; O2 queued while A's backend was quiet; A read its schema back",
  ],
  'session/custom-guc-leak': [
    'session',
    'both phases: the observer missed b1 (queued, quiet probe) and A kept its marker',
  ],
  'session/role-leak': [
    'session',
    'O1 on the other backend saw pooltest; O2 queued behind a quiet b1; A still pooltest_reader',
  ],
  'session/discard-all': [
    'reset',
    'both phases: H2 queued behind a quiet b1, and A read "" back on b1 after its own reset',
  ],
  'temp/on-commit-drop': ['works', 'n=1 inside, survived=false after commit, one backend'],
  'locks/advisory-xact': ['exclusive', "B.try got=false during A's transaction, B.after got=true"],
  'prepared/protocol-named': ['works', 'A answered 42 twice on b1; O1 on the other backend saw visible=0; O2 queued'],
  'cursors/with-hold': ['session', 'O1 visible=0 elsewhere; later observers queued behind a quiet b1; A fetched v=1'],
  'sequences/lastval': ['session', 'observers could not reach b1 (queued, quiet); A read back its own value'],
};

const traffic = (
  abandoned: string,
  block: string,
  cancel: string,
  queueing: string,
  multiplexing: string,
  burst: string,
  why: Record<string, string>,
): Golden => ({
  'transactions/abandoned': [abandoned, why.abandoned!],
  'statement/transaction-block': [block, why.block!],
  'cancel/routing': [cancel, why.cancel!],
  'capacity/queueing': [queueing, why.queueing!],
  'capacity/multiplexing': [multiplexing, why.multiplexing!],
  'capacity/burst': [burst, why.burst!],
});

const ROLLED_BACK =
  'after A died mid-INSERT the observers saw seen=0 and verify found committed=0 and the old transaction gone';
const ALLOWED = 'A.first and A.second ran in one transaction (same xid 733)';
const ROUTED = 'A.slow ended with 57014 (cancelled) while B.slow completed';

export const GOLDEN: Record<string, Golden> = {
  direct: {
    'session/lock-timeout-leak': [
      'session',
      'O1 on another backend (20861) saw 0; A read its own 859530934ms back on 20860',
    ],
    'session/set-leak': ['session', 'O1 on 15922 saw 0; A read back its own 3225007ms on 15921'],
    'session/tracked-parameter': ['session', 'O1 saw application_name pooltest and Etc/UTC; A kept its own values'],
    'session/set-local': ['scoped', 'A saw the value inside (4451007ms) and 0 after commit; O1 saw 0'],
    'temp/temp-table': ['session', 'O1 elsewhere seen=false; A still reads n=1'],
    'locks/advisory-session': ['exclusive', 'O1 on another backend got=false; A unlocked=true'],
    'notify/listen': ['delivered', "the notification arrived in A's readback"],
    'prepared/sql-prepare': ['session', 'O1 visible=0; A EXECUTE answered 42'],
  },
  'direct-state': directState,
  'direct-traffic': traffic('rolled-back', 'allowed', 'routed', 'unlimited', 'one-per-client', 'overflowed', {
    abandoned: ROLLED_BACK,
    block: ALLOWED,
    cancel: ROUTED,
    queueing: '6 transactions, 6 different backends, none waited for another',
    multiplexing: '60 transactions of 20 clients on 20 backends (one each); the server counts 20 connections',
    burst: '75 burst.connect steps refused with 53300 "too many clients"; 25 clients served',
  }),
  'pgbouncer-session': {
    'session/lock-timeout-leak': [
      'session',
      'O1 on the other backend saw 0; O2 queued behind a quiet b1; A kept its timeout on 20957',
    ],
    'session/set-leak': ['session', 'O1 on the other backend saw 0; O2 queued behind a quiet b1; A kept its timeout'],
    'session/tracked-parameter': ['session', 'O1 saw other values; A kept its own application_name and TimeZone on b1'],
    'session/set-local': ['scoped', 'value inside only; after commit A and O1 saw 0'],
    'temp/temp-table': ['session', 'O1 elsewhere seen=false, O2 queued; A still reads n=1'],
    'locks/advisory-session': ['exclusive', 'O1 on the other backend got=false; A unlocked=true'],
    'notify/listen': ['delivered', "the notification arrived in A's readback"],
    'prepared/sql-prepare': ['session', 'O1 visible=0; A EXECUTE answered 42 on b1'],
  },
  'pgbouncer-session-state': {
    ...sessionPoolState,
    'session/reset-on-disconnect': [
      'reset',
      "after A disconnected, O1 on A's backend counted 0 locks, temp tables, listens, statements, cursors, markers",
    ],
  },
  'pgbouncer-session-no-reset-state': {
    ...sessionPoolState,
    'session/reset-on-disconnect': [
      'leaked',
      "server_reset_query is empty: O1 on A's backend found A's lock, temp table, LISTEN, statement, cursor and timeout marker (1 each)",
    ],
  },
  'pgbouncer-session-traffic': traffic('rolled-back', 'allowed', 'routed', 'queued', 'one-per-client', 'absorbed', {
    abandoned: ROLLED_BACK,
    block: ALLOWED,
    cancel: ROUTED,
    queueing: '6 transactions on the 2 backends, the last ending after about 600 ms: they waited, none failed',
    multiplexing: 'only 6 of 24 transactions answered (18 waited past 500 ms): connected clients keep their 2 backends',
    burst:
      '100 burst.client steps answered; PgBouncer accepted all 100 logins at once (100 in flight against max_connections 25)',
  }),
  'pgbouncer-session-no-reset-traffic': traffic(
    'rolled-back',
    'allowed',
    'routed',
    'queued',
    'one-per-client',
    'absorbed',
    {
      abandoned: ROLLED_BACK,
      block: ALLOWED,
      cancel: ROUTED,
      queueing: '6 transactions, 2 backends, about 600 ms for the last: queued',
      multiplexing: '6 of 24 answered, 18 waited past the bound: one backend per connected client',
      burst: '100 answered, all in flight together, against max_connections 25',
    },
  ),
  'pgbouncer-transaction': {
    'session/lock-timeout-leak': ['leaked', "O1 on A's old backend 20882 read A's 869031083ms; A on 20883 read 0"],
    'session/set-leak': ['leaked', "O1 on A's old backend 15982 read A's 3419007ms; A on 15983 read 0"],
    'session/tracked-parameter': [
      'leaked',
      'per parameter: TimeZone, DateStyle, client_encoding, standard_conforming_strings tracked; IntervalStyle seen as iso_8601 by O1 on b1 (not tracked in 1.18); application_name shown to the nameless observer',
    ],
    'session/set-local': ['scoped', 'inside 4361007ms; after commit O1 on b1 and A both saw 0'],
    'temp/temp-table': ['leaked', 'O1 on b1 seen=true; A on 15983 got 42P01'],
    'locks/advisory-session': ['shared', 'O1 on b1: held_before=1 yet got=true; A on 15983 unlocked=false'],
    'notify/listen': ['misrouted', "the notification arrived at O1 (observe.release, on A's old backend), never at A"],
    'prepared/sql-prepare': ['leaked', 'O1 on b1 visible=1; A on 15983 got 26000'],
  },
  'pgbouncer-transaction-state': {
    'session/search-path-leak': [
      'leaked',
      "O1 on b1 32724 saw A's schema in its path and resolved names there; A on 32725 had the default",
    ],
    'session/custom-guc-leak': ['leaked', 'both phases: O1 on b1 read A\'s marker; A on 32725 read ""'],
    'session/role-leak': ['leaked', 'O1 on b1 ran as pooltest_reader; A on 32725 was pooltest again'],
    'session/reset-on-disconnect': [
      'leaked',
      "O1 on A's backend found 1 lock, temp table, listen, statement, cursor and timeout marker",
    ],
    'session/discard-all': ['missed', "both phases: A's reset ran on 32725; L1 on b1 still read A's marker"],
    'temp/on-commit-drop': ['works', 'n=1 inside, survived=false after commit'],
    'locks/advisory-xact': ['exclusive', 'B.try got=false on 32725; B.after got=true after the commit'],
    'prepared/protocol-named': [
      'failed',
      "A's second use got 26000 on the other backend; O1 preparing the same name on b1 got 42P05",
    ],
    'cursors/with-hold': ['leaked', "O1 on b1 visible=1; A's FETCH on 32725 got 34000"],
    'sequences/lastval': ['leaked', "O1 took b1 after A's nextval; A on 32725 got 55000 (no lastval there)"],
  },
  'pgbouncer-transaction-traffic': traffic('rolled-back', 'allowed', 'routed', 'queued', 'multiplexed', 'absorbed', {
    abandoned: ROLLED_BACK,
    block: ALLOWED,
    cancel: ROUTED,
    queueing: '6 transactions on 2 backends, the last ending after about 600 ms: queued',
    multiplexing: '60 transactions of 20 connected clients all answered on 1 backend; the server counts 2 connections',
    burst: '100 burst.client steps answered, all 100 in flight together at the start, against max_connections 25',
  }),
  'pgbouncer-transaction-reset-always-state': {
    'session/search-path-leak': [
      'lost',
      'O1 on b1 saw the default path (reset after the transaction); A on 492 had the default too',
    ],
    'session/custom-guc-leak': ['lost', 'both phases: O1 on b1 read "" and so did A'],
    'session/role-leak': ['lost', 'O1 on b1 ran as pooltest; A on 492 was pooltest again'],
    'session/reset-on-disconnect': ['reset', "O1 on A's backend counted 0 of everything"],
    'session/discard-all': ['reset', 'both phases: L1 on b1 read "" after the reset (the pooler resets anyway)'],
    'temp/on-commit-drop': ['works', 'n=1 inside, survived=false after commit'],
    'locks/advisory-xact': ['exclusive', 'B.try got=false during, B.after got=true after'],
    'prepared/protocol-named': [
      'failed',
      'A got 26000 for its named statement on its next transaction; O1 could prepare the same name on b1',
    ],
    'cursors/with-hold': ['lost', "O1 on b1 visible=0; A's FETCH on 492 got 34000"],
    'sequences/lastval': ['lost', "A's lastval on 492 got 55000; O1 on b1 found nothing"],
  },
  'pgbouncer-transaction-reset-always-traffic': traffic(
    'rolled-back',
    'allowed',
    'routed',
    'queued',
    'multiplexed',
    'absorbed',
    {
      abandoned: ROLLED_BACK,
      block: ALLOWED,
      cancel: ROUTED,
      queueing: '6 transactions, 2 backends, about 600 ms for the last',
      multiplexing: '60 transactions of 20 clients all answered on 2 backends',
      burst: 'as transaction mode: 100 answered together, on 2 backends',
    },
  ),
  'pgbouncer-statement': {
    'session/lock-timeout-leak': ['leaked', "O1 on A's old backend 21094 read A's 1126338426ms; A on 21095 read 0"],
    'session/set-leak': ['leaked', "O1 on A's old backend 16133 read 2778007ms; A on 16134 read 0"],
    'session/tracked-parameter': [
      'leaked',
      'as in transaction pooling: IntervalStyle iso_8601 seen by O1 on b1, application_name by the nameless observer; the other four tracked',
    ],
    'session/set-local': ['rejected', 'A.begin refused with 08P01: statement pooling allows no transaction block'],
    'temp/temp-table': ['leaked', 'O1 on b1 seen=true; A on 16134 got 42P01'],
    'locks/advisory-session': ['shared', 'O1 on b1 held_before=1 and got=true; A unlocked=false'],
    'notify/listen': ['misrouted', "the notification arrived at O1 (observe.take on A's old backend)"],
    'prepared/sql-prepare': ['leaked', 'O1 on b1 visible=1; A on 16134 got 26000'],
  },
  'pgbouncer-statement-state': {
    'session/search-path-leak': [
      'leaked',
      "O1 (a long statement on b1 378) resolved names in A's schema; A on 394 had the default",
    ],
    'session/custom-guc-leak': ['leaked', 'both phases: O1 on b1 read A\'s marker; A on 394 read ""'],
    'session/role-leak': ['leaked', 'O1 on b1 ran as pooltest_reader; A on 394 was pooltest'],
    'session/reset-on-disconnect': ['leaked', "O1 on A's backend found 1 of each of A's states"],
    'session/discard-all': ['missed', "A's reset ran elsewhere (394); L1 on b1 read A's marker"],
    'temp/on-commit-drop': ['rejected', 'A.begin refused with 08P01'],
    'locks/advisory-xact': [
      'exclusive',
      "B.try got=false while A's one-statement transaction held it; B.after got=true",
    ],
    'prepared/protocol-named': ['failed', "A's second use failed with 26000; O1 on b1 saw the statement (visible=1)"],
    'cursors/with-hold': ['leaked', "O1 on b1 visible=1; A's FETCH on 394 got 34000"],
    'sequences/lastval': ['leaked', "A's lastval on 394 got 55000 while O1 held b1"],
  },
  'pgbouncer-statement-traffic': traffic('rejected', 'rejected', 'routed', 'queued', 'multiplexed', 'absorbed', {
    abandoned: 'A.begin refused with 08P01: no transaction to abandon',
    block: 'A.begin refused with 08P01; only the one-message form ran',
    cancel: ROUTED,
    queueing: '6 statements on 2 backends, about 600 ms for the last',
    multiplexing: '60 statements of 20 clients all answered on 2 backends',
    burst: '100 answered, all in flight together, on 2 backends',
  }),
  'pgbouncer-small-max-client-traffic': traffic(
    'rolled-back',
    'allowed',
    'routed',
    'rejected',
    'multiplexed',
    'overflowed',
    {
      abandoned: ROLLED_BACK,
      block: ALLOWED,
      cancel: ROUTED,
      queueing: '4 of 6 clients served; 2 refused by PgBouncer at connect (max_client_conn 4)',
      multiplexing: 'the 12 answered transactions of the clients PgBouncer let in ran on 2 backends',
      burst: '4 served; 96 burst.connect steps refused by PgBouncer: no more connections allowed (max_client_conn)',
    },
  ),
  pgpool: {
    'session/lock-timeout-leak': [
      'session',
      'O1 on another child (21212) saw 0; A read its own 1329680682ms back on 21211',
    ],
    'session/set-leak': [
      'session',
      'O1 on the other child/backend saw 0; O2 could not even connect while b1 was quiet; A kept its timeout',
    ],
    'session/tracked-parameter': ['session', 'O1 elsewhere saw other values; A kept its own'],
    'session/set-local': ['scoped', 'inside only; 0 after commit for A and O1'],
    'temp/temp-table': ['session', 'O1 elsewhere seen=false; A reads n=1'],
    'locks/advisory-session': ['exclusive', 'O1 on the other backend got=false; A unlocked=true'],
    'notify/listen': ['delivered', "the notification arrived in A's readback"],
    'prepared/sql-prepare': ['session', 'O1 visible=0; A EXECUTE answered 42'],
  },
  'pgpool-state': {
    ...sessionPoolState,
    'session/reset-on-disconnect': [
      'reset',
      "after A disconnected, O1 and O2 (O2 on A's backend 32700) counted 0 of everything",
    ],
    'prepared/protocol-named': [
      'works',
      'A answered 42 twice on b1; O1 elsewhere visible=0; O2 could not connect (one client per child)',
    ],
  },
  'pgpool-traffic': traffic('rolled-back', 'allowed', 'ignored', 'queued', 'one-per-client', 'overflowed', {
    abandoned: ROLLED_BACK,
    block: ALLOWED,
    cancel: 'the cancel was written, yet A.slow and B.slow both ran to the end: nothing was cancelled',
    queueing: '6 transactions on 2 backends, about 200 ms for the last, none failed',
    multiplexing: '6 of 24 answered; the rest timed out connecting: one backend per client',
    burst: '47 served, 2 at a time (one per child); 53 connects got no answer within the bound',
  }),
};
