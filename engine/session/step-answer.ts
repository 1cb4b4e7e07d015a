/**
 * A query's answer as evidence: pg's result sets and error turned into what a step records
 * (rows per statement, the error verbatim, the backend pid it read), the tidy-up's answers kept
 * apart from the step's own.
 */
import pg from 'pg';
import { PooltestError } from '../record/errors.js';
import type { ErrorRecord } from '../record/step-record.js';
import type { StepTail } from './session-options.js';

/** Internals of pg's Query used to keep the rows of statements that ran before an error. */
export interface QueryInternals {
  _results: pg.QueryResult | pg.QueryResult[];
}

/**
 * A step's error as evidence. `code` is kept only for an error the target sent (pg's
 * DatabaseError: an ErrorResponse, whose code is its SQLSTATE) and for pooltest's own coded
 * errors (the wire guard's PROTOCOL_VIOLATION). A socket error's errno (ECONNRESET, EPIPE) is
 * no answer from the target: recorded with a code, judges read "read ECONNRESET" on BEGIN as
 * the pooler refusing the transaction, and the outage rule (a link that broke without a word)
 * never saw it. Its errno goes into the message instead when the message does not say it.
 */
export function toErrorRecord(err: Error & { code?: unknown }): ErrorRecord {
  const fromTarget = err instanceof pg.DatabaseError || err instanceof PooltestError;
  const code = typeof err.code === 'string' && err.code !== '' ? err.code : undefined;
  const message = String(err.message ?? err);
  if (!fromTarget) return { message: code && !message.includes(code) ? `${message} (${code})` : message };
  const rec: ErrorRecord = { message };
  if (code) rec.code = code;
  const severity = err instanceof pg.DatabaseError ? err.severity : undefined;
  if (typeof severity === 'string' && severity !== '') rec.severity = severity;
  return rec;
}

export function collectResults(q: QueryInternals): Array<Array<Record<string, unknown>>> {
  const raw = q._results;
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  return list.filter((r) => r.command || r.rows.length > 0).map((r) => r.rows as Array<Record<string, unknown>>);
}

/** The step's own result sets; the tail's (from its first column on) go to its `onAnswer`. */
export function splitTail(
  results: Array<Array<Record<string, unknown>>>,
  tail: StepTail | undefined,
): Array<Array<Record<string, unknown>>> {
  if (!tail) return results;
  const at = results.findIndex((rows) => rows[0] !== undefined && Object.hasOwn(rows[0], tail.column));
  tail.onAnswer(at < 0 ? [] : results.slice(at));
  return at < 0 ? results : results.slice(0, at);
}

/** The first `pid` column any statement of the step returned. */
export function findPid(results: Array<Array<Record<string, unknown>>>): number | null {
  for (const rows of results) {
    const v = rows[0]?.pid;
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  }
  return null;
}

/** Rough statement count for the benchmark's "statements sent" figure. */
export function countStatements(sql: string): number {
  return sql.split(';').filter((s) => s.trim().length > 0).length;
}
