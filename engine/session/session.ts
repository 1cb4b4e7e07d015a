/**
 * A recorded client session through the target. Each `run` sends one simple-protocol query
 * (possibly several statements, which a pooler must run on one backend as one implicit
 * transaction) and records what came back: rows per statement, the error verbatim, notices,
 * notifications, the backend pid, timing, and whether the answer came within its bound.
 */
import pg from 'pg';
import { connectClient } from './connect.js';
import { PooltestError } from '../record/errors.js';
import { onAbort, sleep, within } from '../record/time.js';
import { violationOf } from '../wire/pg-guard.js';
import { traceNow, traceSpan, tracing } from '../record/trace.js';
import type { ProtocolViolation } from '../wire/violation.js';
import type { Recorder } from './recorder.js';
import type { Target } from '../target/target.js';
import type { ErrorRecord, NoticeRecord, NotificationRecord, StepRecord } from '../types.js';

/** Internals of pg's Query used to keep the rows of statements that ran before an error. */
interface QueryInternals {
  _results: pg.QueryResult | pg.QueryResult[];
}

/** The application_name of pooltest sessions that belong to no run (the audit, bare opens). */
export const APPLICATION_NAME = 'pooltest';

/**
 * The application_name of every session of one run. One name for the whole run, because
 * pgpool-II reuses a cached backend only for a client with identical startup parameters; a
 * different name per run, so the sweep can tell this run's sessions (say, one left idle in a
 * transaction) from another run's on the same pooler. Checks that SET application_name use
 * `pooltest-<run>-<check>`, which this name is a prefix of, never equal to.
 */
export function applicationNameFor(runId: string): string {
  return `pooltest-${runId}`;
}

export interface RunOptions {
  /** Give up waiting after this many ms: the step is recorded as `timedOut`. */
  boundMs?: number;
  /** Called with the first row of the first statement as soon as it arrives. */
  onFirstRow?: (row: Record<string, unknown>) => void;
  /** Statements sent after the step's own in the same message, answered apart (see {@link StepTail}). */
  tail?: StepTail;
}

/**
 * Work sent in the same Query message as a step, after its statements, that is not the step's
 * own: the tidy-up after a check, done on the backend the check's last step holds
 * (steering/inline-tidy.ts). The step records its own SQL followed by `note`, and its own
 * answers; the tail's answers, from the first result set carrying `column` on, go to `onAnswer`.
 * The tail's first statement must return that column. Outside a transaction block the step and
 * its tail are one implicit transaction: a failing tail rolls the step back too.
 */
export interface StepTail {
  statements: readonly string[];
  column: string;
  note: string;
  onAnswer(sets: Array<Array<Record<string, unknown>>>): void;
}

export interface SessionBounds {
  connectMs: number;
  stepMs: number;
  /** Default {@link APPLICATION_NAME}. */
  applicationName?: string;
  /**
   * The run was interrupted: a step in flight ends at once (its connection dropped, which rolls
   * back whatever transaction it held), and later steps are recorded without being sent.
   */
  signal?: AbortSignal;
  /**
   * Which TLS attempt worked per endpoint, for `prefer` and `allow` (session/connect.ts): the
   * run's memory (run-state.ts), so its many sessions do not each pay for the failed one.
   */
  tlsFirst?: Map<string, boolean>;
  /**
   * Read only while logging in: the caller stops waiting for the login before `connectMs`
   * (engine/steering/crowd.ts, once a crowd's logins stopped coming). Its reason is thrown.
   */
  giveUp?: AbortSignal;
}

export class Session {
  private labelText: string;
  private client: pg.Client | null;
  private recorder: Recorder;
  private bounds: SessionBounds;
  private pendingNotices: NoticeRecord[] = [];
  private pendingNotifications: NotificationRecord[] = [];
  /** Set once the connection failed or was destroyed: later steps are recorded as errors. */
  private deadReason: string | null = null;
  /** Set by abandonWait: the step in flight is to be recorded as unanswered. */
  private waitAbandoned: string | null = null;

  /** The client as connected, kept after close() for {@link violation}. */
  private readonly guarded: pg.Client;

  private constructor(label: string, client: pg.Client, recorder: Recorder, bounds: SessionBounds) {
    this.labelText = label;
    this.client = client;
    this.guarded = client;
    this.recorder = recorder;
    this.bounds = bounds;
    client.on('error', (err: Error) => {
      // Without a listener an 'error' event would crash the process (a pooler closing us is
      // an expected event here, e.g. statement mode refusing BEGIN).
      this.deadReason ??= err.message;
    });
    client.on('end', () => {
      this.deadReason ??= 'connection closed';
    });
    client.on('notice', (n: { severity?: string; code?: string; message?: string }) => {
      this.pendingNotices.push({ severity: n.severity ?? 'NOTICE', code: n.code, message: n.message ?? '' });
    });
    client.on('notification', (n: pg.Notification) => {
      this.pendingNotifications.push({ channel: n.channel, payload: n.payload ?? '', senderPid: n.processId });
    });
  }

  /** Opens a session; connection failures become coded {@link PooltestError}s. */
  static async open(label: string, target: Target, recorder: Recorder, bounds: SessionBounds): Promise<Session> {
    throwIfInterrupted(bounds.signal);
    const tracedFrom = tracing ? traceNow() : 0;
    // The run's interruption ends a login under way too, as a caller's giveUp does: Ctrl-C
    // during a login a pooler holds does not wait out the connect bound.
    const stop =
      bounds.signal && bounds.giveUp
        ? AbortSignal.any([bounds.signal, bounds.giveUp])
        : (bounds.signal ?? bounds.giveUp);
    const client = await connectClient(
      target,
      bounds.connectMs,
      bounds.applicationName ?? APPLICATION_NAME,
      bounds.tlsFirst,
      stop,
    ).catch((err: unknown) => {
      throwIfInterrupted(bounds.signal);
      throw err;
    });
    if (tracing) traceSpan('login', label, `${target.host}:${target.port}`, tracedFrom);
    if (bounds.signal?.aborted) {
      // Interrupted while connecting (bounded by connectMs): do not hand out a new session.
      await within(
        client.end().catch(() => undefined),
        500,
        undefined,
      );
      throwIfInterrupted(bounds.signal);
    }
    const { giveUp: _loginOnly, ...kept } = bounds;
    return new Session(label, client, recorder, kept);
  }

  /** The session's name in recorded steps (A, O1, ...). */
  get label(): string {
    return this.labelText;
  }

  /**
   * Hands a session logged in ahead of need (steering/spare-session.ts) to the scenario that
   * uses it, before its first step: its name, the record its steps go to, and that scenario's
   * interruption signal.
   */
  adopt(label: string, recorder: Recorder, signal: AbortSignal | undefined): void {
    this.labelText = label;
    this.recorder = recorder;
    const { signal: _previous, ...rest } = this.bounds;
    this.bounds = signal ? { ...rest, signal } : rest;
  }

  /** The malformed message that closed this session's connection (the wire guard's evidence), if one did. */
  get violation(): ProtocolViolation | null {
    return violationOf(this.guarded)?.violation ?? null;
  }

  get alive(): boolean {
    return this.client !== null && this.deadReason === null;
  }

  /** BackendKeyData as the target sent it (behind a pooler: the pooler's key, not a backend's). */
  get cancelKey(): { processId: number; secretKey: number } | null {
    const c = this.client as unknown as { processID?: number; secretKey?: number } | null;
    return c?.processID !== undefined && c.secretKey !== undefined
      ? { processId: c.processID, secretKey: c.secretKey }
      : null;
  }

  /**
   * Runs `sql` and records it under `tag`. Never throws for SQL errors, timeouts or lost
   * connections: those are evidence, and the judge decides what they mean.
   */
  async run(tag: string, sql: string, opts: RunOptions = {}): Promise<StepRecord> {
    const tail = opts.tail;
    const sent = tail ? [sql, ...tail.statements].join('; ') : sql;
    return this.send(
      tag,
      tail ? `${sql} ${tail.note}` : sql,
      countStatements(sent),
      opts,
      (done) => new pg.Query(sent, undefined, done),
    );
  }

  /**
   * Runs a named protocol-level prepared statement, as a driver does (`client.query({ name,
   * text })`), and records it under `tag`. pg remembers which names it has parsed on this
   * connection and sends Parse only the first time; later uses are Bind/Execute alone, which
   * is exactly what breaks when a pooler moves the client to a backend that never saw the
   * Parse. The recorded sql says which messages were sent.
   */
  async runPrepared(tag: string, name: string, text: string, opts: RunOptions = {}): Promise<StepRecord> {
    const messages = this.hasParsed(name) ? 'Bind/Execute' : 'Parse/Bind/Execute';
    return this.send(
      tag,
      `[${messages} "${name}"] ${text}`,
      1,
      opts,
      (done) => new pg.Query({ name, text }, undefined, done),
    );
  }

  /** Whether pg will skip Parse for this statement name on this connection. */
  private hasParsed(name: string): boolean {
    const conn = (this.client as unknown as { connection?: { parsedStatements?: Record<string, string> } } | null)
      ?.connection;
    return conn?.parsedStatements?.[name] !== undefined;
  }

  /** Sends one query built by `build` (handed pg's completion callback) and records the answer. */
  private async send(
    tag: string,
    sql: string,
    statements: number,
    opts: RunOptions,
    build: (done: (err: Error | undefined) => void) => pg.Query,
  ): Promise<StepRecord> {
    const startMs = this.recorder.now();
    const tracedFrom = tracing ? traceNow() : 0;
    this.recorder.statements += statements;
    const base = { session: this.label, tag, sql, startMs };
    if (this.bounds.signal?.aborted) this.destroy(INTERRUPTED);
    if (!this.client || this.deadReason !== null) {
      return this.record(base, [], { message: `session not usable: ${this.deadReason ?? 'closed'}` }, false);
    }
    const client = this.client;
    const bound = opts.boundMs ?? this.bounds.stepMs;
    let settle!: (v: { error: ErrorRecord | null; timedOut: boolean }) => void;
    const settled = new Promise<{ error: ErrorRecord | null; timedOut: boolean }>((r) => (settle = r));
    // A callback (rather than 'end'/'error' events) keeps pg accumulating rows even while a
    // 'row' listener is attached for early pids.
    const query = build((err) => {
      settle({ error: err ? toErrorRecord(err) : null, timedOut: false });
    });
    if (opts.onFirstRow) {
      const onFirstRow = opts.onFirstRow;
      let firstRowSeen = false;
      query.on('row', (row: Record<string, unknown>) => {
        if (!firstRowSeen) {
          firstRowSeen = true;
          onFirstRow(row);
        }
      });
    }
    client.query(query);
    const abort = onAbort(this.bounds.signal, 'interrupted' as const);
    const raced = await within(Promise.race([settled, abort.promise]), bound, { error: null, timedOut: true });
    abort.dispose();
    const results = splitTail(collectResults(query as unknown as QueryInternals), opts.tail);
    if (tracing) traceSpan('step', this.label, tag, tracedFrom);
    if (raced === 'interrupted') {
      this.destroy(INTERRUPTED);
      return this.record(base, results, { message: INTERRUPTED }, false);
    }
    const outcome = raced;
    if (this.waitAbandoned !== null && !outcome.timedOut && outcome.error && !outcome.error.code) {
      // We stopped waiting (abandonWait) and pg then failed the query for the socket we closed:
      // the step went unanswered; it is no lost connection (which would read as an outage).
      return this.record(base, results, { message: this.waitAbandoned }, true);
    }
    if (outcome.timedOut) {
      // The answer may still come later and would then belong to no step: a timed-out
      // session is never reused.
      this.destroy(`no answer within ${bound} ms`);
      return this.record(base, results, { message: `no answer within ${bound} ms` }, true);
    }
    return this.record(base, results, outcome.error, false);
  }

  private record(
    base: { session: string; tag: string; sql: string; startMs: number },
    results: Array<Array<Record<string, unknown>>>,
    error: ErrorRecord | null,
    timedOut: boolean,
  ): StepRecord {
    const pid = findPid(results);
    const notices = this.pendingNotices;
    const notifications = this.pendingNotifications;
    this.pendingNotices = [];
    this.pendingNotifications = [];
    let txStatus: string | null = null;
    if (this.client && this.deadReason === null) {
      txStatus =
        (this.client as unknown as { getTransactionStatus?: () => string | null }).getTransactionStatus?.() ?? null;
    }
    return this.recorder.add({
      ...base,
      pid,
      results,
      error,
      notices,
      notifications,
      durationMs: this.recorder.since(base.startMs),
      timedOut,
      txStatus,
    });
  }

  /** Waits up to `ms` for notifications to arrive, then records them as a step. */
  async collectNotifications(tag: string, ms: number): Promise<StepRecord> {
    const startMs = this.recorder.now();
    const deadline = Date.now() + ms;
    while (
      this.pendingNotifications.length === 0 &&
      Date.now() < deadline &&
      this.alive &&
      !this.bounds.signal?.aborted
    ) {
      await sleep(5);
    }
    return this.record({ session: this.label, tag, sql: '(wait for notifications)', startMs }, [], null, false);
  }

  /** Ends the session politely, bounded; falls back to destroying the socket. */
  async close(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = null;
    if (this.deadReason !== null) {
      destroySocket(client);
      return;
    }
    await within(
      client.end().catch(() => undefined),
      this.bounds.stepMs,
      undefined,
    );
    destroySocket(client);
  }

  /**
   * Gives up on the step in flight (a pooler queueing it) and drops the connection: that step
   * is recorded as unanswered within its bound, like any other timeout.
   */
  abandonWait(reason: string): void {
    this.waitAbandoned ??= reason;
    this.destroy(reason);
  }

  /** Drops the TCP connection at once (a pooler sees a client vanish). */
  destroy(reason = 'destroyed'): void {
    this.deadReason ??= reason;
    const client = this.client;
    if (client) destroySocket(client);
  }
}

const INTERRUPTED = 'interrupted: the run was cancelled';

function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new PooltestError('INTERRUPTED', 'the run was interrupted: no new session is opened');
}

function destroySocket(client: pg.Client): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
  stream?.destroy();
}

/**
 * A step's error as evidence. `code` is kept only for an error the target sent (pg's
 * DatabaseError: an ErrorResponse, whose code is its SQLSTATE) and for pooltest's own coded
 * errors (the wire guard's PROTOCOL_VIOLATION). A socket error's errno (ECONNRESET, EPIPE) is
 * no answer from the target: recorded with a code, judges read "read ECONNRESET" on BEGIN as
 * the pooler refusing the transaction, and the outage rule (a link that broke without a word)
 * never saw it. Its errno goes into the message instead when the message does not say it.
 */
function toErrorRecord(err: Error & { code?: unknown }): ErrorRecord {
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

function collectResults(q: QueryInternals): Array<Array<Record<string, unknown>>> {
  const raw = q._results;
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  return list.filter((r) => r.command || r.rows.length > 0).map((r) => r.rows as Array<Record<string, unknown>>);
}

/** The step's own result sets; the tail's (from its first column on) go to its `onAnswer`. */
function splitTail(
  results: Array<Array<Record<string, unknown>>>,
  tail: StepTail | undefined,
): Array<Array<Record<string, unknown>>> {
  if (!tail) return results;
  const at = results.findIndex((rows) => rows[0] !== undefined && Object.hasOwn(rows[0], tail.column));
  tail.onAnswer(at < 0 ? [] : results.slice(at));
  return at < 0 ? results : results.slice(0, at);
}

/** The first `pid` column any statement of the step returned. */
function findPid(results: Array<Array<Record<string, unknown>>>): number | null {
  for (const rows of results) {
    const v = rows[0]?.pid;
    if (typeof v === 'number') return v;
    if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  }
  return null;
}

/** Rough statement count for the benchmark's "statements sent" figure. */
function countStatements(sql: string): number {
  return sql.split(';').filter((s) => s.trim().length > 0).length;
}
