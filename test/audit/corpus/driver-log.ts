/**
 * Server log lines (stderr format, log_statement = 'all' unless the line says duration) as
 * drivers produce them, each with the findings the audit must report for it and why. Names
 * are the drivers' own schemes: pgjdbc `S_n` (after prepareThreshold uses), node-postgres the
 * `name` the application gives, pgx `stmtcache_<hash>`, asyncpg `__asyncpg_stmt_n__`.
 */

/** One log line, the labels expected at it (" + " joins several; "none"), and why. */
export type LogCase = [line: string, expect: string, why: string];

const P = '2026-03-02 09:15:01.123 UTC [4242] app@shop ';

export const DRIVER_LOG: readonly LogCase[] = [
  [
    `${P}LOG:  execute S_1: SELECT id, total FROM orders WHERE customer_id = $1`,
    'prepared/protocol-named',
    'pgjdbc names a statement once it is reused; the next transaction may land on a backend without S_1',
  ],
  [`${P}DETAIL:  parameters: $1 = '7'`, 'none', 'the parameters of the line above, not a statement'],
  [
    `${P}LOG:  execute <unnamed>: SELECT id FROM products WHERE sku = $1`,
    'none',
    'an unnamed statement lives for one round trip: safe',
  ],
  [
    `${P}LOG:  execute S_2: SELECT pg_advisory_lock($1)`,
    'prepared/protocol-named + locks/advisory-session',
    'a named statement whose text also takes a session lock: both',
  ],
  [
    `${P}LOG:  execute lookup_user: SELECT * FROM users WHERE id = $1`,
    'prepared/protocol-named',
    "node-postgres's { name: 'lookup_user', text } query",
  ],
  [
    `${P}LOG:  execute stmtcache_9f2c1a7e: UPDATE carts SET updated_at = now() WHERE id = $1`,
    'prepared/protocol-named',
    "pgx's statement cache names statements by hash",
  ],
  [
    `${P}LOG:  execute __asyncpg_stmt_3__: SELECT lastval()`,
    'prepared/protocol-named + sequences/lastval',
    "asyncpg's statement cache, and lastval() read in a later transaction",
  ],
  [
    `${P}LOG:  execute <unnamed>/C_4: SELECT * FROM big_table`,
    'none',
    'a named portal of an unnamed statement: the statement is still unnamed',
  ],
  [
    `${P}LOG:  execute fetch from <unnamed>/C_4: SELECT * FROM big_table`,
    'none',
    'continues the portal above: not a new execution',
  ],
  [
    `${P}LOG:  execute S_3/C_5: SELECT * FROM audit_log ORDER BY id`,
    'prepared/protocol-named',
    'a named statement run through a named portal: the name is before the slash',
  ],
  [`${P}LOG:  statement: SET statement_timeout = '5s'`, 'session/set-leak', 'simple protocol, session-level SET'],
  [
    `${P}LOG:  statement: DEALLOCATE ALL`,
    'cleanup of prepared/sql-prepare',
    'a driver clearing SQL-level statements on reset: cleanup',
  ],
  [
    `${P}LOG:  duration: 0.061 ms  parse orders_by_day: SELECT date_trunc('day', created_at), count(*) FROM orders GROUP BY 1`,
    'prepared/protocol-named',
    'with duration logging the parse line is the evidence of the name (not an execution)',
  ],
  [
    `${P}LOG:  duration: 0.012 ms  bind orders_by_day: SELECT date_trunc('day', created_at), count(*) FROM orders GROUP BY 1`,
    'prepared/protocol-named',
    'the bind line of the same statement: evidence, no execution',
  ],
  [`${P}LOG:  duration: 0.015 ms  bind <unnamed>: SELECT 1`, 'none', 'an unnamed bind says nothing'],
  [
    `${P}LOG:  statement: SELECT pg_advisory_unlock_all()`,
    'cleanup of locks/advisory-session',
    'pool reset releasing session locks',
  ],
  [`${P}LOG:  statement: DISCARD ALL`, 'cleanup of all', 'PgBouncer-style reset query sent by an application'],
];
