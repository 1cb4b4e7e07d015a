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
 *   duration lines are steps of an execute and are skipped.
 */

/** Severity words PostgreSQL writes before `:  ` (with two spaces) in stderr logs. */
export const SEVERITIES = new Set([
  'DEBUG', 'DEBUG1', 'DEBUG2', 'DEBUG3', 'DEBUG4', 'DEBUG5', 'LOG', 'INFO', 'NOTICE', 'WARNING', 'ERROR', 'FATAL', 'PANIC',
  'DETAIL', 'HINT', 'QUERY', 'CONTEXT', 'LOCATION', 'STATEMENT',
]);

/** The statement of a log message of severity LOG. */
export interface LoggedStatement {
  text: string;
  /** Run through an extended-protocol prepared statement with a name (not `<unnamed>`). */
  namedProtocol: boolean;
}

/** The statement a LOG message reports, or null when the message is about something else. */
export function statementFromMessage(message: string): LoggedStatement | null {
  if (message.startsWith('statement: ')) return { text: message.slice(11), namedProtocol: false };
  if (message.startsWith('execute ')) return fromExecute(message);
  if (message.startsWith('duration: ')) {
    const rest = message.indexOf(' ms  ');
    if (rest === -1) return null;
    return statementFromMessage(message.slice(rest + 5));
  }
  return null;
}

function fromExecute(message: string): LoggedStatement | null {
  if (message.startsWith('execute fetch from ')) return null;
  const colon = message.indexOf(': ', 8);
  if (colon === -1) return null;
  const name = message.slice(8, colon);
  return { text: message.slice(colon + 2), namedProtocol: name !== '<unnamed>' };
}
