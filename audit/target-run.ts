/**
 * `--target URL`: runs only the checks the findings depend on against the pooler, now, and
 * joins their outcomes. The audit sits above the runner (see test/architecture), so it calls
 * `run()` directly; the runner is loaded only when `--target` is given, which keeps the audit of
 * files and logs from loading Vitest.
 */
import { PooltestError } from '../engine/record/errors.js';
import { connectClient } from '../engine/session/connect.js';
import { APPLICATION_NAME } from '../engine/session/session.js';
import { INTERRUPT_SIGNALS, interruptedExitCode } from '../engine/record/signals.js';
import { redactEndpoint, resolveTarget, type Target } from '../engine/target/target.js';
import { within } from '../engine/record/time.js';
import { behaviourFromReport, checkedReport, type PoolerBehaviour } from './pooler-behaviour.js';

/** The commands that join findings with a pooler: each prints under its own name. */
export type FindingsCommand = 'audit' | 'watch';

/**
 * The pooler as the command line named it: `--target` and the psql words that refine it
 * (`-h -p -U -d --password`, common/option-table.ts), and `--direct` for the run's sweep.
 */
export interface TargetWords {
  readonly target: string;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly user?: string | undefined;
  readonly database?: string | undefined;
  readonly password?: string | undefined;
  readonly direct?: string | undefined;
}

/**
 * What a command that runs checks against a pooler (audit, watch) takes besides `--target`:
 * psql's words for it and the password, optional.
 */
export interface TargetRefinements {
  /** Password for `target` when not in the URL or PGPASSWORD. */
  password?: string;
  /** psql's `-h -p -U -d` for `target`: they win over what its text says. */
  host?: string;
  port?: number;
  user?: string;
  database?: string;
}

/** The words resolved as psql would (options, then the target's text, then PG*, then defaults). */
export function wordsTarget(words: TargetWords, env: NodeJS.ProcessEnv = process.env): Target {
  // Picked by name: callers pass their whole options, which hold more than the words.
  const { target, host, port, user, database, password } = words;
  return resolveTarget(
    {
      target,
      ...(host !== undefined ? { host } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(user !== undefined ? { user } : {}),
      ...(database !== undefined ? { database } : {}),
      ...(password !== undefined ? { password } : {}),
    },
    env,
  );
}

/**
 * How messages name the pooler: as typed when only --target was given, else as resolved
 * (`user@host:port/db`), so that the user `-U` named is the one a message shows. Never with
 * the password.
 */
export function wordsName(words: TargetWords, env: NodeJS.ProcessEnv = process.env): string {
  const refined = [words.host, words.port, words.user, words.database].some((v) => v !== undefined);
  if (!refined) return redactEndpoint(words.target);
  const t = wordsTarget(words, env);
  return `${t.user}@${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}/${t.database}`;
}

/**
 * Runs the checks among `checkIds` that this build has against `target` and returns the
 * outcomes. Ids without a check stay unknown (the audit warns about them). Every step is
 * bounded by `timeoutMs`; while the checks run, SIGINT, SIGTERM, SIGHUP and SIGQUIT stop them
 * in order (the check in flight ends, the sweep removes what it left) and the audit ends with
 * INTERRUPTED (exit 128 + the signal, see interruptedExitCode); a second signal quits at once.
 * Progress lines start with `pooltest COMMAND:`, the command that asked (audit or watch).
 */
export async function behaviourFromTarget(
  words: TargetWords,
  checkIds: string[],
  timeoutMs?: number,
  command: FindingsCommand = 'audit',
): Promise<PoolerBehaviour> {
  const prefix = `pooltest ${command}:`;
  const { run, selectChecks } = await import('../runner/run.js');
  const runnable = checkIds.filter((id) => isRunnable(selectChecks, id));
  const name = wordsName(words);
  if (runnable.length === 0) return { basis: 'target', name, outcomes: new Map() };
  process.stderr.write(`${prefix} running ${runnable.length} check(s) against --target ${name}\n`);
  const report = await interruptible(prefix, (signal) =>
    run({
      target: wordsTarget(words),
      ...(words.direct !== undefined ? { direct: words.direct } : {}),
      only: runnable,
      signal,
      // One line per check, so a long run shows it is alive (and where a signal found it).
      onCheckResult: (r) => void process.stderr.write(`${prefix} ${r.id}: ${r.outcome ?? r.verdict}\n`),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    }),
  );
  return behaviourFromReport(checkedReport(report, `--target ${name}`), 'target', words.target);
}

/**
 * Runs `work` with the interrupt signals turned into an abort of its signal. Interrupted, it
 * throws INTERRUPTED (detail.signal names the signal) once `work` has ended, whatever it
 * returned: a report of stopped checks must not be joined as if it were an answer.
 */
async function interruptible<T>(prefix: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let received: NodeJS.Signals | null = null;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (received !== null) process.exit(interruptedExitCode(received));
    received = sig;
    process.stderr.write(
      `\n${prefix} ${sig}: stopping the checks against --target, then sweeping it (send it again to quit at once)\n`,
    );
    controller.abort(new PooltestError('INTERRUPTED', `interrupted by ${sig}`, { signal: sig }));
  };
  for (const sig of INTERRUPT_SIGNALS) process.on(sig, onSignal);
  const stopped = (): PooltestError =>
    new PooltestError('INTERRUPTED', `interrupted by ${received}: the checks against --target stopped and were swept`, {
      signal: received,
    });
  try {
    const value = await work(controller.signal);
    if (received !== null) throw stopped();
    return value;
  } catch (err) {
    if (received !== null && !(err instanceof PooltestError && err.code === 'INTERRUPTED' && 'signal' in err.detail))
      throw stopped();
    throw err;
  } finally {
    for (const sig of INTERRUPT_SIGNALS) process.off(sig, onSignal);
  }
}

/**
 * Throws the coded error (TARGET_REFUSED, AUTH_FAILED..., named `--target`) when `target`
 * cannot be connected to. Asked before a workload runs or a log is read: a dead pooler found
 * only at the end would cost the whole watch and leave no report.
 */
export async function checkTargetReachable(
  words: TargetWords,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const t = wordsTarget(words, env);
  let client;
  try {
    client = await connectClient(t, timeoutMs, APPLICATION_NAME);
  } catch (err) {
    if (err instanceof PooltestError) throw new PooltestError(err.code, `--target: ${err.message}`, err.detail);
    throw err;
  }
  await within(
    client.end().catch(() => undefined),
    1_000,
    undefined,
  );
}

/** The runner refuses unknown ids as a whole; ask it about each one so one gap costs only itself. */
function isRunnable(select: (only: string[], skip: string[]) => string[], id: string): boolean {
  try {
    return select([id], []).includes(id);
  } catch {
    return false;
  }
}
