/**
 * What a session is opened and run with: the application_name it logs in with, its bounds,
 * and the options of one step.
 */

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
