/**
 * Which PostgreSQL log messages carry a statement the server ran, whatever the log format.
 * These are the server's own message texts (postgres.c), in English: `lc_messages` set to
 * another language is not recognised.
 *
 * - `statement: SQL` from log_statement (simple protocol);
 * - `execute NAME: SQL` from log_statement (extended protocol; NAME `<unnamed>` or a driver's
 *   statement name). `execute fetch from ...` continues an earlier portal and is skipped so the
 *   statement is counted once;
 * - `duration: N ms  statement: SQL` / `duration: N ms  execute NAME: SQL` from
 *   log_min_duration_statement. PostgreSQL prints the text there only when log_statement did
 *   not already log it, so counting both never counts a statement twice. `parse` and `bind`
 *   duration lines are steps of an execute: not counted as statements, but one that names its
 *   statement (`parse S_1: ...`) is kept as evidence of a named prepared statement.
 *
 * The server writes `execute NAME/PORTAL: ...` when a portal is named too (postgres.c):
 * the statement's name is what comes before the slash.
 */

/** Severity words PostgreSQL writes before `:  ` (with two spaces) in stderr logs. */
export const SEVERITIES = new Set([
  'DEBUG',
  'DEBUG1',
  'DEBUG2',
  'DEBUG3',
  'DEBUG4',
  'DEBUG5',
  'LOG',
  'INFO',
  'NOTICE',
  'WARNING',
  'ERROR',
  'FATAL',
  'PANIC',
  'DETAIL',
  'HINT',
  'QUERY',
  'CONTEXT',
  'LOCATION',
  'STATEMENT',
]);

/** The statement of a log message of severity LOG. */
export interface LoggedStatement {
  text: string;
  /** Run through an extended-protocol prepared statement with a name (not `<unnamed>`). */
  namedProtocol: boolean;
  /** That statement's name, when it has one. */
  name?: string;
  /** `parse` / `bind`: a step of an execute (not a statement run); else the statement ran. */
  phase?: 'run' | 'parse' | 'bind';
}

/** The statement a LOG message reports, or null when the message is about something else. */
export function statementFromMessage(message: string): LoggedStatement | null {
  if (message.startsWith('statement: ')) return { text: message.slice(11), namedProtocol: false };
  if (message.startsWith('execute ')) return fromProtocol(message, 'execute ', 'run');
  if (message.startsWith('duration: ')) {
    const rest = message.indexOf(' ms  ');
    if (rest === -1) return null;
    const after = message.slice(rest + 5);
    if (after.startsWith('parse ')) return fromProtocol(after, 'parse ', 'parse');
    if (after.startsWith('bind ')) return fromProtocol(after, 'bind ', 'bind');
    return statementFromMessage(after);
  }
  return null;
}

function fromProtocol(message: string, verb: string, phase: 'run' | 'parse' | 'bind'): LoggedStatement | null {
  if (message.startsWith('execute fetch from ')) return null;
  const colon = message.indexOf(': ', verb.length);
  if (colon === -1) return null;
  const label = message.slice(verb.length, colon);
  const slash = label.indexOf('/');
  const name = slash === -1 ? label : label.slice(0, slash);
  const named = name !== '<unnamed>' && name !== '';
  // An unnamed parse or bind says nothing the execute line does not: skip it.
  if (phase !== 'run' && !named) return null;
  return { text: message.slice(colon + 2), namedProtocol: named, ...(named ? { name } : {}), phase };
}
