/**
 * Signal handlers from the very first moment of the process. Node's default for SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT is to die at once; pooltest's real handlers (interrupt.ts) come only once the
 * command's modules have loaded, a few hundred milliseconds in. Loaded first by the entry
 * point, this module only notes a signal that comes before them, and `watchInterrupts` acts
 * on it as soon as it starts, so even an early Ctrl-C ends in an orderly exit 130. (The list is
 * engine/signals.ts's INTERRUPT_SIGNALS, spelled here because this file may import nothing.)
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
let early: NodeJS.Signals | null = null;
const note = (sig: NodeJS.Signals): void => {
  early ??= sig;
};
for (const sig of SIGNALS) process.on(sig, note);

/** The signal that came before the real handlers, if any; stops listening early. */
export function takeEarlySignal(): NodeJS.Signals | null {
  for (const sig of SIGNALS) process.off(sig, note);
  return early;
}
