/**
 * A long statement whose backend is known before it ends. Statement-mode holders use it to
 * keep a backend without a transaction block; cancel/routing uses it to know that a slow query
 * is really running, and where, before it sends a CancelRequest.
 */
import type { Session } from '../session/session.js';
import type { StepRecord } from '../types.js';

/**
 * The server keeps a query's output buffered until the query ends; a NOTICE is the one thing
 * it flushes at once, taking the rows before it along. That is how the pid of a sleeping
 * statement reaches us before the sleep is over.
 */
export const FLUSH_PID =
  "DO $pooltest$ BEGIN PERFORM pg_catalog.set_config('client_min_messages', 'notice', true); RAISE NOTICE 'pooltest holds backend %', pg_backend_pid(); END $pooltest$";

export interface LongStatement {
  /** The pid of the first row (read `AS pid` by the caller's first statement), or null if the statement ended without one. */
  pid: Promise<number | null>;
  /** The recorded step, once the statement has ended (or its bound has passed). */
  done: Promise<StepRecord>;
}

/**
 * Sends `statements` (the first must return a `pid` column), then the flush, then
 * `pg_sleep(sleepMs)`, as one query. `boundMs` bounds the whole step.
 */
export function startLongStatement(
  session: Session,
  tag: string,
  statements: string[],
  sleepMs: number,
  boundMs: number,
): LongStatement {
  const sql = [...statements, FLUSH_PID, `SELECT pg_sleep(${(sleepMs / 1000).toFixed(3)})`].join('; ');
  let resolvePid!: (pid: number | null) => void;
  const pid = new Promise<number | null>((r) => (resolvePid = r));
  const done = session.run(tag, sql, {
    boundMs,
    onFirstRow: (row) => resolvePid(typeof row.pid === 'number' ? row.pid : Number(row.pid)),
  });
  // A statement refused or cut short never sends its first row: the pid is then null.
  void done.then(() => resolvePid(null));
  return { pid, done };
}
