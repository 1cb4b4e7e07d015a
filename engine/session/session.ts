/**
 * A recorded client session through the target. Each `run` sends one simple-protocol query
 * (possibly several statements, which a pooler must run on one backend as one implicit
 * transaction) and records what came back: rows per statement, the error verbatim, notices,
 * notifications, the backend pid, timing, and whether the answer came within its bound. The
 * connection under it (alive or not, ending it) is session-link.ts; how an answer becomes
 * evidence, step-answer.ts.
 */
import pg from 'pg';
import { connectClient } from './connect.js';
import { PooltestError } from '../record/errors.js';
import type { ErrorRecord, StepRecord } from '../record/step-record.js';
import { onAbort, sleep, within } from '../record/time.js';
import { traceNow, traceSpan, tracing } from '../record/trace.js';
import type { Recorder } from './recorder.js';
import { APPLICATION_NAME, type RunOptions, type SessionBounds } from './session-options.js';
import { SessionLink, transactionStatus } from './session-link.js';
import {
  collectResults,
  countStatements,
  findPid,
  splitTail,
  toErrorRecord,
  type QueryInternals,
} from './step-answer.js';
import type { Target } from '../target/target.js';

export {
  APPLICATION_NAME,
  applicationNameFor,
  type RunOptions,
  type SessionBounds,
  type StepTail,
} from './session-options.js';

export class Session extends SessionLink {
  private labelText: string;
  private recorder: Recorder;

  private constructor(label: string, client: pg.Client, recorder: Recorder, bounds: SessionBounds) {
    super(client, bounds);
    this.labelText = label;
    this.recorder = recorder;
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
      txStatus = transactionStatus(this.client);
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
}

const INTERRUPTED = 'interrupted: the run was cancelled';

function throwIfInterrupted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new PooltestError('INTERRUPTED', 'the run was interrupted: no new session is opened');
}
