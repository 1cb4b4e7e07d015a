/**
 * Retries the driver keeps to itself, seen from the server's side. A driver that receives
 * 26000 "prepared statement does not exist", prepares again and resends shows the application
 * a success; pgjdbc's log and postgres.js's send hook show it (agent-process.ts, DRIVER_LOG),
 * the other drivers say nothing. PostgreSQL logs every ERROR with the backend's pid
 * (`log_line_prefix` `%m [%p] ...`, the fixtures' and the default's shape), so the lines the
 * server wrote while a driver step ran, on the backend that step ran on, are the errors that
 * step met, whatever the driver told the application.
 *
 * Where the log comes from: the fixture's own log file with `--stack`, or `--server-log FILE`
 * (a log pooltest can read, of the PostgreSQL behind the target). PostgreSQL offers nothing
 * else a plain login can read: pg_stat_database counts rolled-back transactions per database,
 * not per backend (pooltest's own sessions roll back too), pg_stat_statements is an extension
 * that may be absent and counts no errors, and pg_read_file needs pg_read_server_files.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { StepRecord } from '../engine/types.js';
import { AGENT_USE_TAGS, DRIVER_TAGS } from './tags.js';

/** Severity of a notice that carries a server log line (a server error the step met). */
export const SERVER_LOG = 'server-log';

/** One ERROR the server logged: when (epoch ms), on which backend, and its text. */
export interface LoggedError {
  atMs: number;
  pid: number;
  message: string;
  /** The failed statement, from the STATEMENT line the server logs after the error, when there is one. */
  statement?: string;
}

/** `2026-12-01 23:57:18.400 UTC [4533] user@db ERROR:  prepared statement "S_1" does not exist` */
const LINE = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) (\S+) \[(\d+)\] (?:\S*@\S* )?ERROR:\s+(.*)$/;

/** The STATEMENT line PostgreSQL logs after an error, on the same backend. */
const STATEMENT_LINE = /^\S+ \S+ \S+ \[(\d+)\] (?:\S*@\S* )?STATEMENT:\s+(.*)$/;

/** The ERROR lines of `text` whose timestamp can be read (time zones other than UTC/GMT are not). */
export function parseServerLog(text: string): LoggedError[] {
  const out: LoggedError[] = [];
  let last: LoggedError | null = null;
  for (const line of text.split('\n')) {
    const st = STATEMENT_LINE.exec(line);
    if (st && last !== null && Number(st[1]) === last.pid) {
      last.statement = st[2]!;
      last = null;
      continue;
    }
    last = null;
    const m = LINE.exec(line);
    if (!m) continue;
    const zone = m[2]!;
    if (zone !== 'UTC' && zone !== 'GMT') continue;
    const atMs = Date.parse(`${m[1]!.replace(' ', 'T')}Z`);
    if (!Number.isFinite(atMs)) continue;
    last = { atMs, pid: Number(m[3]), message: m[4]! };
    out.push(last);
  }
  return out;
}

/**
 * A failed DEALLOCATE is a driver tidying a name away (PDO when a statement object goes, behind
 * a pooler that renamed it), which the application never sees and no driver retries.
 */
function isCleanup(e: LoggedError): boolean {
  return e.statement !== undefined && /^\s*DEALLOCATE\b/i.test(e.statement);
}

/** A server log read from where it stood when the reader was made; at most 4 MiB per read. */
export class ServerLogReader {
  private offset: number;

  private constructor(private readonly file: string) {
    this.offset = statSync(file).size;
  }

  /** A reader from the log's current end, or the reason the log cannot be read. */
  static open(file: string): ServerLogReader | { unreadable: string } {
    try {
      const reader = new ServerLogReader(file);
      closeSync(openSync(file, 'r'));
      return reader;
    } catch (err) {
      return {
        unreadable: `the server log ${file} cannot be read: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
  }

  /** The errors logged since the last read (a log rotated or truncated meanwhile is read from its start). */
  readNew(): LoggedError[] {
    try {
      const size = statSync(this.file).size;
      if (size < this.offset) this.offset = 0;
      const length = Math.min(size - this.offset, 4 * 1024 * 1024);
      if (length <= 0) return [];
      const buf = Buffer.alloc(length);
      const fd = openSync(this.file, 'r');
      try {
        readSync(fd, buf, 0, length, this.offset);
      } finally {
        closeSync(fd);
      }
      // Only whole lines: a line being written now is read next time.
      const text = buf.toString('utf8');
      const end = text.lastIndexOf('\n') + 1;
      this.offset += Buffer.byteLength(text.slice(0, end));
      return parseServerLog(text.slice(0, end));
    } catch {
      return [];
    }
  }
}

/**
 * Adds each logged error to the driver step that ran on its backend at that time, as a notice
 * of severity {@link SERVER_LOG}. `originMs` is the epoch time of the record's 0 (its
 * recorder's start). A step with an error of its own is left alone: the application saw that.
 * The window has 50 ms of slack after the step for the log write itself, cut short where an
 * agent's next step begins: an error from then on may be that step's. Django's iterator's
 * FETCH failing on the backend B had just used, and PDO's `DEALLOCATE` at B's close (refused
 * by a server that never saw the name: PgBouncer 1.25.2 had renamed it), were once read as
 * B's retry. A failed step whose backend is unknown still ends the previous step's slack.
 * The log's milliseconds are truncated, so an error logged in the millisecond the next step
 * began counts as the next step's. A failed DEALLOCATE is no step's (isCleanup): under load PDO's
 * at B's close came within B's last run's millisecond, and B read `retried` again (a loaded CI run).
 *
 * A batch (DRIVER_TAGS.batch.run) returns no rows, so its step names no backend: it is given
 * every backend of the record (its statements' backends are among them, and pooltest's own
 * sessions beside it raise no errors while it runs). A batch that got no answer is not left
 * alone: what the server logged while pooltest waited is the evidence of the stall.
 */
export function attachServerErrors(steps: StepRecord[], errors: readonly LoggedError[], originMs: number): void {
  const everyBackend = new Set<number>(steps.flatMap((s) => pidsOf(s)));
  const uses = steps.filter((s) => AGENT_USE_TAGS.has(s.tag));
  // Every step of the agents' sessions, logins and logouts too (ActiveRecord's DEALLOCATE at
  // disconnect fails behind PgBouncer 1.25, which renamed its statements: that is no retry).
  const agents = new Set(uses.map((s) => s.session));
  const agentSteps = steps.filter((s) => agents.has(s.session));
  for (const s of uses) {
    // Only the agents' uses of the driver (A's and B's queries, not pooltest's own holders).
    const batch = s.tag === DRIVER_TAGS.batch.run;
    if (s.error && !(batch && s.timedOut)) continue;
    const own = pidsOf(s);
    const pids = batch && own.length === 0 ? everyBackend : new Set(own);
    const end = s.startMs + s.durationMs;
    const next = Math.min(...agentSteps.filter((u) => u.startMs >= end && u !== s).map((u) => u.startMs));
    const from = originMs + s.startMs - 5;
    // The log's milliseconds are truncated: an error logged in the millisecond the next step
    // began counts as the next step's.
    const to = Math.min(originMs + end + 50, Math.floor(originMs + next));
    for (const e of errors)
      if (pids.has(e.pid) && e.atMs >= from && e.atMs < to && !isCleanup(e))
        s.notices.push({ severity: SERVER_LOG, message: `${e.message} (server log, backend ${e.pid})` });
  }
}

/** The backends a step names: its own pid and its rows' `pid` column. */
function pidsOf(s: StepRecord): number[] {
  return [
    ...(s.pid !== null ? [s.pid] : []),
    ...s.results.flatMap((rows) => rows.map((r) => r.pid).filter((p): p is number => typeof p === 'number')),
  ];
}
