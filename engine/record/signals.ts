/**
 * The signals that interrupt a run in order, and the exit code each leaves: shared by the
 * CLI's handlers (cli/interrupt.ts) and the audit's `--target` run (audit/target-run.ts).
 */
import { INTERRUPTED_EXIT_CODE } from './errors.js';

/** SIGHUP is what a dropped SSH session sends; SIGQUIT is Ctrl-\. */
export const INTERRUPT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];

/**
 * The exit code after an orderly interrupt: 128 + the signal's number, as shells report a
 * death by it (129 SIGHUP, 130 SIGINT, 131 SIGQUIT), except SIGTERM, whose 130 is documented
 * (and relied on) since before the others were handled.
 */
export function interruptedExitCode(sig: NodeJS.Signals): number {
  if (sig === 'SIGHUP') return 129;
  if (sig === 'SIGQUIT') return 131;
  return INTERRUPTED_EXIT_CODE;
}

/**
 * The exit code of a run stopped through `signal`: the signal's own code when the abort reason
 * names one (the CLI's handlers do, in the reason's detail), 130 otherwise.
 */
export function exitCodeOfAbort(signal: AbortSignal | undefined): number {
  const reason: unknown = signal?.reason;
  const named =
    reason !== null && typeof reason === 'object' ? (reason as { detail?: { signal?: unknown } }).detail?.signal : null;
  return typeof named === 'string' && (INTERRUPT_SIGNALS as readonly string[]).includes(named)
    ? interruptedExitCode(named as NodeJS.Signals)
    : INTERRUPTED_EXIT_CODE;
}
