/**
 * A scenario owns the sessions of one check and their shared event log. It knows the run's
 * target, what discovery learned, and the bounds every step must respect, and it closes every
 * session it opened, whatever happened. How its sessions log in and are closed is
 * scenario-sessions.ts, which it extends; here is what it records and when its evidence is in.
 */
import { PooltestError } from '../record/errors.js';
import type { Discovery } from '../record/discovery-facts.js';
import type { StepRecord } from '../record/step-record.js';
import { MARKERS_TAG } from '../record/step-reading.js';
import type { Session } from '../session/session.js';
import { connectError, ScenarioSessions, type NoteDetail } from './scenario-sessions.js';

export type { RunContext, RunData } from '../context/run-state.js';

/** What the tidy-up's statements found on the step that carried them (inline-tidy.ts). */
export interface InlineVisit {
  /** The backend the tidy-up's statements ran on; null when they did not run. */
  pid: number | null;
  /** Their result sets: the pid, the inspection's counts, the cleanup. */
  sets: Array<Array<Record<string, unknown>>>;
  /** The carrying step. */
  seq: number;
  startMs: number;
  /** The step ended without error or timeout, and every statement of the tidy-up answered. */
  ok: boolean;
}

export class Scenario extends ScenarioSessions {
  /**
   * The tidy-up's statements, where the engine lets the check's last steps do its work on the
   * backends they hold (inline-tidy.ts); null: the tidy-up visits the pool after the check.
   */
  inlineTidy: readonly string[] | null = null;
  /** What the tidy-up's statements found where the check's steps carried them (inline-tidy.ts). */
  readonly inlineVisits: InlineVisit[] = [];
  private onEvidence: (() => void) | null = null;

  /**
   * Called by the engine's `fn` each time the scenario says its evidence is in
   * ({@link evidenceComplete}).
   */
  whenEvidenceComplete(fn: () => void): void {
    this.onEvidence = fn;
  }

  /**
   * Everything the check's judge reads has been recorded; what follows only cleans up. The
   * engine asks its end-of-check questions (other runs active during the check) now, alongside
   * the cleanup, instead of after it. A scenario that gathers more evidence later says so again:
   * the latest call counts.
   */
  evidenceComplete(): void {
    this.onEvidence?.();
  }

  /** Whether `step` went through the target (not a direct session's). */
  throughTarget(step: StepRecord): boolean {
    return !this.directLabels.has(step.session);
  }

  /** The backends the scenario's steps ran on through the target (not those of its direct sessions). */
  pooledBackends(): number[] {
    const pids = this.steps.filter((s) => this.throughTarget(s)).map((s) => s.pid);
    return [...new Set(pids.filter((p): p is number => p !== null))];
  }

  get discovery(): Discovery {
    return this.ctx.discovery;
  }

  get steps(): StepRecord[] {
    return this.recorder.steps;
  }

  /** How long a take may wait before we conclude the pooler is queueing it. */
  get waitMs(): number {
    return this.ctx.discovery.waitBoundMs;
  }

  /**
   * Like {@link open}, but a connection that does not complete within `connectMs` is recorded
   * as a waited step instead of thrown: a pooler with no free slot (pgpool-II's children all
   * busy) holds new connections in its listen queue. A login given up on through `giveUp`
   * (with a STEP_TIMEOUT reason) is recorded the same way.
   */
  async tryOpen(label: string, tag: string, connectMs: number, giveUp?: AbortSignal): Promise<Session | null> {
    const startMs = this.recorder.now();
    try {
      return await this.open(label, giveUp ? { connectMs, giveUp } : { connectMs });
    } catch (err) {
      if (this.noteConnectFailure(label, tag, startMs, err)) return null;
      throw err;
    }
  }

  /**
   * Records a connection that failed, from `startMs`, as a `tag` step with its coded error and
   * the server's SQLSTATE (53300) when it sent one; a malformed answer is not recorded again
   * (open() recorded it). True when it was a timeout (a waited step, not an error to throw).
   */
  noteConnectFailure(label: string, tag: string, startMs: number, err: unknown): boolean {
    if (err instanceof PooltestError && err.code === 'PROTOCOL_VIOLATION') return false;
    const timedOut = err instanceof PooltestError && err.code === 'STEP_TIMEOUT';
    this.note(label, tag, '(connect)', { startMs, error: connectError(err), timedOut });
    return timedOut;
  }

  /**
   * Records something a scenario did that is not a query (a socket destroyed, a cancel request
   * sent), so the judge can see it in order with the queries around it.
   */
  note(label: string, tag: string, what: string, detail: NoteDetail = {}): StepRecord {
    const startMs = detail.startMs ?? this.recorder.now();
    return this.recorder.add({
      session: label,
      tag,
      sql: what,
      pid: null,
      results: detail.facts ? [[detail.facts]] : [],
      error: typeof detail.error === 'string' ? { message: detail.error } : (detail.error ?? null),
      notices: [],
      notifications: [],
      startMs,
      durationMs: this.recorder.since(startMs),
      timedOut: detail.timedOut ?? false,
      txStatus: null,
    });
  }

  /**
   * Records the markers this check uses (values unique to the run: a timeout, a channel, a
   * schema) as facts of a `run.markers` step (`<phase>:run.markers` in a phase), so judges
   * read them from the record instead of parsing them back out of the SQL.
   */
  recordMarkers(values: Record<string, string | number>, phase?: string): void {
    this.note('run', phase ? `${phase}:${MARKERS_TAG}` : MARKERS_TAG, '(the markers this check uses)', {
      facts: values,
    });
  }
}
