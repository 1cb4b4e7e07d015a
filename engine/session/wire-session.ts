/**
 * A recorded client session at the wire level: pooltest's own message writer and validating
 * reader on a raw socket, for traffic node-postgres cannot send (a pipeline of many
 * Parse/Bind/Execute/Sync in one write, COPY sub-protocol messages, Close). It logs in through
 * rawStartup at protocol 3.0 with the run's user, database and application_name, bounded by
 * the run's connect bound. No TLS: a check that uses it is skipped when the run's sslmode
 * requires TLS ({@link wireSkipReason}).
 *
 * `exchange` writes a batch in ONE write and reads until every ReadyForQuery it asked for came
 * back (or a COPY response where reading must stop), the connection ended, a reply broke the
 * protocol, or the step bound passed. Each segment of the batch (up to its Sync or Query) is
 * recorded as one step in the scenario's record, with its answer decoded: rows per statement,
 * the error verbatim, the pid where a statement returned `pid`, the transaction status. A
 * malformed reply is a PROTOCOL_VIOLATION error on the step it broke, silence is `timedOut`
 * with how long it waited; neither is thrown.
 */
import { PooltestError } from '../record/errors.js';
import type { StepRecord } from '../record/step-record.js';
import { within } from '../record/time.js';
import type { Target } from '../target/target.js';
import { decodeBackend, type BackendItem } from '../wire/backend.js';
import * as fe from '../wire/frontend.js';
import type { Frame } from '../wire/frame-reader.js';
import type { Recorder } from './recorder.js';
import { protocolVersion, rawStartup, RawConnection, type StartupEnd } from './raw-startup.js';
import { APPLICATION_NAME, type SessionBounds } from './session-options.js';
import { findPid } from './step-answer.js';
import { AnswerBuilder, emptyAnswer, readiesFor, segmentsOf, type SyncAnswer } from './wire-answer.js';
import { asExchangeEnd, describeEnd, endError, loginError, type ExchangeEnd } from './wire-end.js';

export type { SyncAnswer } from './wire-answer.js';
export type { ExchangeEnd } from './wire-end.js';

/** Why a wire session cannot run against this target, or null when it can. */
export function wireSkipReason(target: Target): string | null {
  return ['require', 'verify-ca', 'verify-full'].includes(target.sslmode)
    ? `the wire-level client does not speak TLS yet, and sslmode=${target.sslmode} requires it`
    : null;
}

export interface WireExchange {
  /** One answer per segment that got any, in the order they arrived; the last may be partial. */
  answers: SyncAnswer[];
  end: ExchangeEnd;
  /** From the write to the end of reading. */
  waitedMs: number;
  /** The recorded steps, one per segment sent. */
  steps: StepRecord[];
}

export interface ExchangeOptions {
  /** Wait bound for the whole exchange; default the run's step bound. */
  boundMs?: number;
  /** ReadyForQuery messages to read; default one per Sync and Query (and one for a Query's COPY ended here). */
  readies?: number;
  /** Also stop at a CopyOutResponse (reading always stops at CopyInResponse and CopyBothResponse: the server waits). */
  stopAtCopyOut?: boolean;
}

const isFrame = (x: Frame | StartupEnd): x is Frame => 'payload' in x;

export class WireSession {
  /** Set once the connection ended or was given up on: later exchanges are recorded as not sent. */
  private deadReason: string | null = null;
  /** The last ReadyForQuery's status. */
  private status: string | null = 'I';
  /** A COPY FROM STDIN started by a Query is under way: its CopyDone/CopyFail is answered with ReadyForQuery. */
  private copyViaQuery = false;
  /** ParameterStatus values as the target last reported them (login and later). */
  readonly parameters = new Map<string, string>();

  private constructor(
    readonly label: string,
    private readonly conn: RawConnection,
    private readonly recorder: Recorder,
    private readonly bounds: SessionBounds,
    /** BackendKeyData's pid (behind a pooler: the pooler's). */
    readonly keyPid: number | null,
  ) {}

  /**
   * Logs in at protocol 3.0. Failures are thrown as coded errors, as Session.open does:
   * TARGET_UNREACHABLE, AUTH_FAILED (or the server's refusal), STEP_TIMEOUT, PROTOCOL_VIOLATION.
   */
  static async open(label: string, target: Target, recorder: Recorder, bounds: SessionBounds): Promise<WireSession> {
    const skip = wireSkipReason(target);
    if (skip) throw new PooltestError('TLS_FAILED', skip);
    if (bounds.signal?.aborted)
      throw new PooltestError('INTERRUPTED', 'the run was interrupted: no new session is opened');
    const ep = {
      host: target.host,
      port: target.port,
      user: target.user,
      database: target.database,
      ...(target.password !== undefined ? { password: target.password } : {}),
    };
    const name = bounds.applicationName ?? APPLICATION_NAME;
    const { result, conn } = await rawStartup(
      ep,
      protocolVersion(3, 0),
      name === '' ? {} : { application_name: name },
      bounds.connectMs,
    );
    if (!conn) throw loginError(result.end, `${target.host}:${target.port}`, bounds.connectMs);
    return new WireSession(label, conn, recorder, bounds, result.key?.pid ?? null);
  }

  get alive(): boolean {
    return this.deadReason === null;
  }

  /** The transaction status of the last ReadyForQuery (I, T, E), null when unknown. */
  get txStatus(): string | null {
    return this.status;
  }

  /**
   * Writes `messages` in one write and reads their answers (see the file's comment). Steps are
   * tagged `tag` when the batch is one segment, else `tag.1`, `tag.2`..., unless `tag` lists
   * one tag per segment.
   */
  async exchange(
    tag: string | readonly string[],
    messages: readonly fe.FrontendMessage[],
    opts: ExchangeOptions = {},
  ): Promise<WireExchange> {
    const startMs = this.recorder.now();
    const segments = segmentsOf(messages, this.copyViaQuery);
    const tags = tagsFor(tag, segments.length);
    if (this.deadReason !== null || this.bounds.signal?.aborted) {
      const reason = this.deadReason ?? 'interrupted: the run was cancelled';
      const steps = segments.map((seg, i) =>
        this.add(tags[i]!, seg, startMs, emptyAnswer(), { message: `session not usable: ${reason}` }, false),
      );
      return { answers: [], end: { kind: 'unusable', reason }, waitedMs: 0, steps };
    }
    const readies = opts.readies ?? readiesFor(segments, this.copyViaQuery);
    this.recorder.statements += messages.filter((m) => m.type === 'E' || m.type === 'Q').length;
    this.conn.write(Buffer.concat(messages.map((m) => m.bytes)));
    const got = await this.read(readies, opts.boundMs ?? this.bounds.stepMs, opts.stopAtCopyOut === true);
    const waitedMs = Math.round(performance.now() - got.startedAt);
    this.copyViaQuery =
      got.end.kind === 'copy' &&
      got.end.response === 'CopyInResponse' &&
      lastQueryStarted(segments, got.answers.length);
    // The segment reading ended on: the partial answer's, or the first with no answer at all.
    const at = got.answers.length - (got.partial ? 1 : 0);
    const steps = segments.map((seg, i) => {
      const answer = got.answers[i] ?? emptyAnswer();
      const failure = i < at ? null : endError(got.end, waitedMs, i === at);
      const error = answer.error
        ? { code: answer.error.code, severity: answer.error.severity, message: answer.error.message }
        : failure;
      return this.add(tags[i]!, seg, startMs, answer, error, got.end.kind === 'timeout' && i >= at);
    });
    // Answers a pooler sent beyond what was asked for are evidence too.
    for (const extra of got.answers.slice(segments.length))
      steps.push(this.add(`${tags.at(-1)!}.unasked`, [], startMs, extra, null, false));
    return { answers: got.answers, end: got.end, waitedMs, steps };
  }

  /**
   * Writes `messages` and reads nothing: a client that leaves with them in flight. Recorded as
   * one step with no answer.
   */
  sendOnly(tag: string, messages: readonly fe.FrontendMessage[]): StepRecord {
    const startMs = this.recorder.now();
    if (this.deadReason === null) this.conn.write(Buffer.concat(messages.map((m) => m.bytes)));
    const error = this.deadReason === null ? null : { message: `session not usable: ${this.deadReason}` };
    return this.add(tag, messages, startMs, emptyAnswer(), error, false, ' (sent; no answer read)');
  }

  /** Drops the connection at once, with a FIN or (reset) a TCP RST: a client that vanished. */
  drop(opts: { reset?: boolean } = {}): void {
    this.deadReason ??= 'dropped by the scenario';
    if (opts.reset) this.conn.socket.resetAndDestroy();
    else this.conn.close();
  }

  /**
   * Ends the session politely, bounded by the step bound: a ROLLBACK first when the last status
   * said a transaction was open (a pooler may hand a departed client's server back as it is),
   * then Terminate in its own write, then the socket is destroyed.
   */
  async close(): Promise<void> {
    if (this.deadReason !== null) return this.conn.close();
    this.deadReason = 'closed';
    if (this.status === 'T' || this.status === 'E') {
      this.conn.write(fe.query('ROLLBACK').bytes);
      await within(this.read(1, this.bounds.stepMs, false), this.bounds.stepMs, null);
    }
    this.conn.write(fe.terminate().bytes);
    this.conn.close();
  }

  /** Reads answers until `readies` ReadyForQuery, a COPY stop, an end, or the bound. */
  private async read(
    readies: number,
    boundMs: number,
    stopAtCopyOut: boolean,
  ): Promise<{ answers: SyncAnswer[]; end: ExchangeEnd; partial: boolean; startedAt: number }> {
    const startedAt = performance.now();
    const wallStart = Date.now();
    const deadline = wallStart + boundMs;
    const answers: SyncAnswer[] = [];
    let builder: AnswerBuilder | null = null;
    const abort = (): void => this.conn.close();
    this.bounds.signal?.addEventListener('abort', abort, { once: true });
    try {
      let done = 0;
      while (done < readies) {
        const got = await this.conn.next(deadline, wallStart);
        if (!isFrame(got)) {
          const end = this.bounds.signal?.aborted ? ({ kind: 'interrupted' } as const) : asExchangeEnd(got);
          this.deadReason ??= describeEnd(end);
          this.conn.close();
          return { answers, end, partial: builder !== null, startedAt };
        }
        const item = decodeBackend(got);
        if (!builder) {
          builder = new AnswerBuilder();
          answers.push(builder.answer);
        }
        builder.add(item);
        if (item.kind === 'ParameterStatus') this.parameters.set(item.name, item.value);
        const stop = copyStop(item, stopAtCopyOut);
        if (stop) return { answers, end: { kind: 'copy', response: stop }, partial: true, startedAt };
        if (item.kind === 'ReadyForQuery') {
          this.status = item.status;
          builder = null;
          done++;
        }
      }
      return { answers, end: { kind: 'complete' }, partial: false, startedAt };
    } finally {
      this.bounds.signal?.removeEventListener('abort', abort);
    }
  }

  private add(
    tag: string,
    sent: readonly fe.FrontendMessage[],
    startMs: number,
    answer: SyncAnswer,
    error: StepRecord['error'],
    timedOut: boolean,
    note = '',
  ): StepRecord {
    return this.recorder.add({
      session: this.label,
      tag,
      sql: `${sent.map((m) => m.shown).join('; ')}${note}`,
      pid: findPid(answer.results),
      results: answer.results,
      error,
      notices: answer.notices,
      notifications: answer.notifications,
      startMs,
      durationMs: this.recorder.since(startMs),
      timedOut,
      txStatus: answer.status,
    });
  }
}

function tagsFor(tag: string | readonly string[], n: number): string[] {
  if (typeof tag !== 'string') return Array.from({ length: n }, (_, i) => tag[i] ?? `${tag.at(-1) ?? 'wire'}.${i + 1}`);
  return n === 1 ? [tag] : Array.from({ length: n }, (_, i) => `${tag}.${i + 1}`);
}

/** Whether the segment a COPY response arrived in (the last one answered) ended with a Query. */
function lastQueryStarted(segments: readonly fe.FrontendMessage[][], answered: number): boolean {
  return segments[answered - 1]?.at(-1)?.type === 'Q';
}

function copyStop(
  item: BackendItem,
  stopAtCopyOut: boolean,
): Extract<ExchangeEnd, { kind: 'copy' }>['response'] | null {
  if (item.kind === 'CopyInResponse' || item.kind === 'CopyBothResponse') return item.kind;
  return item.kind === 'CopyOutResponse' && stopAtCopyOut ? item.kind : null;
}
