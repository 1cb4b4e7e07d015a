/**
 * Errors that say the target was unavailable, not that it refused the statement. A judge that
 * reads "an error with an SQLSTATE" as "the pooler rejects this" would turn an outage into a
 * conclusion: PgBouncer answers every query with 08P01 "server login has been failing" while
 * Postgres restarts - the same SQLSTATE it uses to refuse BEGIN in statement mode. So the
 * engine looks for outage evidence in every record, whatever the check's judge concluded.
 */
import type { StepRecord } from '../types.js';

/**
 * Postgres: the server shut down, crashed, is starting, or dropped the connection; the client
 * could not establish or lost a connection. Not 53300 (too many connections) nor 57014 (a
 * cancel): those are answers some checks are looking for.
 */
const OUTAGE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P04', '08000', '08001', '08003', '08004', '08006']);

/** The same, worded by poolers (PgBouncer uses 08P01 for these and for genuine refusals alike). */
const OUTAGE_MESSAGES = new RegExp(
  [
    'server login has been failing',
    'cannot connect to server',
    'server conn crashed',
    'database system is (starting up|shutting down|not yet accepting|in recovery)',
    'terminating connection due to administrator command',
    'pgbouncer is shutting down',
    'server shutting down',
    'database shutdown',
    'server connection closed',
  ].join('|'),
  'i',
);

/** A connection refused before any byte (nothing listens: the pooler is down), as Scenario records it. */
const REFUSED_BEFORE_LOGIN = /^TARGET_REFUSED: /;

/** Connection lost with no word from the server (a pooler killed, a socket reset). */
const LOST_WITHOUT_WORD =
  /^(Connection terminated unexpectedly|read ECONNRESET|write EPIPE|This socket has been ended)/i;

/** The first step whose error shows the target unavailable, if any. */
export function outageIn(steps: readonly StepRecord[]): StepRecord | undefined {
  const firstErrorBySession = new Map<string, StepRecord>();
  for (const s of steps) if (s.error && !firstErrorBySession.has(s.session)) firstErrorBySession.set(s.session, s);
  return steps.find((s) => {
    const e = s.error;
    if (!e) return false;
    if (e.code && OUTAGE_SQLSTATES.has(e.code)) return true;
    if (OUTAGE_MESSAGES.test(e.message)) return true;
    if (REFUSED_BEFORE_LOGIN.test(e.message)) return true;
    // A session whose first trouble is a silent close: nothing refused anything, the link broke.
    return firstErrorBySession.get(s.session) === s && !e.code && LOST_WITHOUT_WORD.test(e.message);
  });
}

/**
 * Every connection of the check failed: refused at login, dropped, or left unanswered, and no
 * statement got an answer (a result, or an error with an SQLSTATE once logged in - statement
 * pooling refusing BEGIN is an answer). Whatever the login errors say (53300 from a pooler that
 * refuses everyone, ECONNREFUSED from one that is down), such a record shows the target
 * unavailable, never how it behaves: a label read from it would be the outage's.
 */
export function nothingAnswered(steps: readonly StepRecord[]): StepRecord | undefined {
  if (steps.some(isAnswer)) return undefined;
  return steps.find((s) => s.error !== null || s.timedOut);
}

/** Whether any statement of the record got an answer from the target (see nothingAnswered). */
export function anyAnswer(steps: readonly StepRecord[]): boolean {
  return steps.some(isAnswer);
}

function isAnswer(s: StepRecord): boolean {
  return (!s.error && !s.timedOut && s.pid !== null) || (s.error?.code !== undefined && s.sql !== CONNECT_NOTE);
}

/** The `sql` of a failed connection's step (Scenario.tryOpen). */
const CONNECT_NOTE = '(connect)';
