/**
 * What a step records: one round trip of one session, with what came back (rows, the error
 * verbatim, notices, notifications) and when. The unit of evidence every judge reads.
 */

/** A NOTICE, WARNING or similar message the server or pooler sent while a step ran. */
export interface NoticeRecord {
  severity: string;
  code?: string;
  message: string;
}

/** A NOTIFY delivered to a session while a step ran (or while it sat idle before it). */
export interface NotificationRecord {
  channel: string;
  payload: string;
  /** pid of the backend that sent it, as the protocol reports it. */
  senderPid: number;
}

/** A Postgres or pooler error, kept verbatim. Client-side errors have no `code`. */
export interface ErrorRecord {
  code?: string;
  severity?: string;
  message: string;
}

/** One round trip of one session: the unit of evidence. */
export interface StepRecord {
  /** Order of the step in its check, starting at 1. */
  seq: number;
  /** Session label: A, B, C..., or H1, H2 for holders, O1, O2 for observers. */
  session: string;
  /** What the step is for in the scenario (`A.create`, `observe.take`...): judges look steps up by tag. */
  tag: string;
  sql: string;
  /** `pg_backend_pid()` of the backend that ran the step, when the step read it. */
  pid: number | null;
  /** Rows of each statement of the step, in order (a step may send several statements). */
  results: Array<Array<Record<string, unknown>>>;
  error: ErrorRecord | null;
  notices: NoticeRecord[];
  notifications: NotificationRecord[];
  /** Milliseconds since the check started. */
  startMs: number;
  durationMs: number;
  /** `waited`: the step did not get an answer within its bound (a pooler queueing it). */
  timedOut: boolean;
  /** Transaction status after the step: I idle, T in transaction, E failed transaction. */
  txStatus: string | null;
}

/** Facts behind an outcome label, as short named booleans, numbers or strings. */
export type Facts = Record<string, boolean | number | string | null>;
