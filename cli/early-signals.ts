/**
 * Signal handlers from the very first moment of the process. Node's default for SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT is to die at once; pooltest's real handlers (interrupt.ts) come only once the
 * command's modules have loaded, a few hundred milliseconds in (seconds on a loaded machine).
 * Loaded first by the entry point, this module notes a signal that comes before them and says
 * so at once: noting it silently left a user who pressed Ctrl-C looking at nothing until the
 * modules had loaded, or, for a subcommand, at a silent exit 130. `watchInterrupts` then acts
 * on it as soon as it starts, so even an early Ctrl-C ends in an orderly exit 130. (The list is
 * engine/record/signals.ts's INTERRUPT_SIGNALS, spelled here because this file may import nothing.)
 *
 * What no JavaScript can cover: a signal during Node's own start, before this module runs
 * (tens of milliseconds on a quiet machine), still ends the process as Node's default does.
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;

/** The line a signal before anything started ends with (also command.ts's INTERRUPTED error). */
export const EARLY_INTERRUPT_MESSAGE = 'interrupted before anything started; nothing to clean up';

let early: NodeJS.Signals | null = null;
const note = (sig: NodeJS.Signals): void => {
  if (early !== null) return;
  early = sig;
  // process.stderr needs no import; a closed stderr drops the line (closed-pipes.ts listens).
  process.stderr.write(`\npooltest: ${sig} while starting: ending before anything starts\n`);
};
for (const sig of SIGNALS) process.on(sig, note);

/** The signal that came before the real handlers, if any; stops listening early. */
export function takeEarlySignal(): NodeJS.Signals | null {
  for (const sig of SIGNALS) process.off(sig, note);
  return early;
}
