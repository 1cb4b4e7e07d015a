/**
 * SIGINT, SIGTERM, SIGHUP (a dropped SSH session) and SIGQUIT in the CLI. The first signal does not kill pooltest: it aborts the run's
 * signal, so the check in flight stops at once (its sessions dropped), checks not started are
 * reported as not run, and the sweep still visits every backend the run touched and removes
 * what the stopped check left behind. The CLI then writes what report it has, stops any
 * fixture it started, and exits 130 (SIGINT, SIGTERM), 129 (SIGHUP) or 131 (SIGQUIT).
 *
 * The cleanup is bounded: if it has not finished within the grace period, or a second signal
 * comes (an impatient Ctrl-C), fixtures are stopped and the process exits 130 at once, without
 * the sweep, with the same exit code. Fixture processes run in their own process group, so a terminal's Ctrl-C reaches
 * only pooltest and the shutdown order stays ours.
 */
import { INTERRUPTED_EXIT_CODE, PooltestError } from '../engine/record/errors.js';
import { INTERRUPT_SIGNALS, interruptedExitCode } from '../engine/record/signals.js';
import { within } from '../engine/record/time.js';
import { takeEarlySignal } from './early-signals.js';
import { writeTo } from './closed-pipes.js';

type Stop = () => Promise<void>;

export interface Interrupt {
  /** Aborted on the first signal; hand it to `run()`. */
  readonly signal: AbortSignal;
  /**
   * Aborted when pooltest quits at once (a second signal, or the cleanup over its grace
   * period): the fixtures are being stopped, so the run must neither start the sweep nor write
   * a report (the message said so); its reason is the INTERRUPTED error to end with.
   */
  readonly quit: AbortSignal;
  /** The signal received, or null. */
  readonly received: NodeJS.Signals | null;
  /** The signal's exit code once interrupted (see interruptedExitCode), otherwise the run's own. */
  exitCode(code: number): number;
  /** The report is written (and the sweep behind it done): a forced quit from now on says so. */
  reported(): void;
  /** Removes the handlers and the grace timer (the run is over). */
  dispose(): void;
}

export interface InterruptOptions {
  /** What pooltest started and must stop when forced to quit (read when needed: set late). */
  stopEmbedded(): Stop | null;
  /** How long the orderly cleanup (the check's end, the sweep, the report) may take. */
  graceMs?: number;
  write?(text: string): void;
  /**
   * What the first signal's line says will happen (default: the run's check and sweep). A
   * command with no sweep (drivers) must not promise one.
   */
  firstLine?(sig: NodeJS.Signals): string;
  /** What a forced quit's line says may be left (default: what a check in flight had set up). */
  forcedLine?(why: string): string;
}

export { INTERRUPTED_EXIT_CODE };
const DEFAULT_GRACE_MS = 60_000;
/** Bound on stopping fixtures when forced; the fixtures' own stop is bounded too. */
const FORCED_STOP_MS = 15_000;

export { INTERRUPT_SIGNALS, interruptedExitCode };
const SIGNALS = INTERRUPT_SIGNALS;

/** Set by the first signal: whatever error the run then ends with, the exit code is the signal's. */
let interruptedBy: NodeJS.Signals | null = null;

/** The exit code of the signal that interrupted this process's run, or null. */
export function interruptedCode(): number | null {
  return interruptedBy === null ? null : interruptedExitCode(interruptedBy);
}

export function watchInterrupts(opts: InterruptOptions): Interrupt {
  const controller = new AbortController();
  const quit = new AbortController();
  const write = opts.write ?? ((text: string) => writeTo(process.stderr, text));
  let received: NodeJS.Signals | null = null;
  let grace: NodeJS.Timeout | undefined;
  let forcing = false;
  let reportWritten = false;

  const force = (why: string): void => {
    if (forcing) return;
    forcing = true;
    quit.abort(
      new PooltestError('INTERRUPTED', `${why}: quit without the sweep; no report was written`, {
        signal: received ?? 'SIGINT',
      }),
    );
    // Only the fixtures are left to stop: nothing of the run is given up.
    if (reportWritten)
      write(`pooltest: ${why}: the sweep ran and the report is written; stopping fixtures and quitting at once\n`);
    else if (opts.forcedLine) write(opts.forcedLine(why));
    // Without the sweep nobody proves the target clean: say what may be left, and where.
    else
      write(
        `pooltest: ${why}: stopping fixtures and quitting without the sweep. On the target may remain what the check in flight had set up, ` +
          "all named after this run (objects and channels named pooltest_<run>, an advisory lock in pooltest's namespace, harmless timeouts of an hour or more) " +
          'and application_name pooltest-<run> on server connections until the pooler resets or closes them; no report is written\n',
      );
    void (async () => {
      try {
        await within(
          stopEverything(opts.stopEmbedded()).catch(() => undefined),
          FORCED_STOP_MS,
          undefined,
        );
      } finally {
        process.exit(interruptedExitCode(received ?? 'SIGINT'));
      }
    })();
  };

  const handle = (sig: NodeJS.Signals, fromEarly: boolean): void => {
    if (received !== null) {
      force(`${sig} again`);
      return;
    }
    received = sig;
    interruptedBy = sig;
    // A signal from before the handlers (early-signals.ts) was announced then, and nothing
    // has started: no check in flight, nothing to sweep; the command ends with INTERRUPTED.
    if (!fromEarly)
      write(
        opts.firstLine
          ? opts.firstLine(sig)
          : `\npooltest: ${sig}: stopping the check in flight, then sweeping the target and cleaning up (send it again to quit at once)\n`,
      );
    controller.abort(new PooltestError('INTERRUPTED', `interrupted by ${sig}`, { signal: sig }));
    const graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
    grace = setTimeout(() => force(`cleanup took longer than ${Math.round(graceMs / 1000)} s`), graceMs);
  };
  // Node calls a listener with more than the signal's name (its number too): wrapped.
  const onSignal = (sig: NodeJS.Signals): void => handle(sig, false);
  for (const sig of SIGNALS) process.on(sig, onSignal);
  // A signal that came while the command was still loading counts as if it came now.
  const early = takeEarlySignal();
  if (early) handle(early, true);

  return {
    signal: controller.signal,
    quit: quit.signal,
    get received() {
      return received;
    },
    exitCode: (code) => (received !== null ? interruptedExitCode(received) : code),
    reported() {
      reportWritten = true;
    },
    dispose() {
      clearTimeout(grace);
      for (const sig of SIGNALS) process.off(sig, onSignal);
      // The report is out and the process about to end: a signal now must not kill it (Node's
      // default), or output still buffered is lost. The first one lets the exit come (the
      // report's own code, set last), a second one, or a process that does not end, exits with
      // that signal's code.
      let late = false;
      const onLateSignal = (sig: NodeJS.Signals): void => {
        if (late) process.exit(interruptedExitCode(sig));
        late = true;
        setTimeout(() => process.exit(interruptedExitCode(sig)), 2_000).unref();
      };
      for (const sig of SIGNALS) process.on(sig, onLateSignal);
      // Interrupted and done: nothing may keep the process from ending with its exit code.
      if (received !== null) {
        const code = interruptedExitCode(received);
        setTimeout(() => process.exit(code), 2_000).unref();
      }
    },
  };
}

/** The embedded stack first (a pooler before its Postgres), then anything else a fixture left. */
async function stopEverything(stopEmbedded: Stop | null): Promise<void> {
  try {
    if (stopEmbedded) await stopEmbedded();
  } finally {
    const { stopAllFixtures } = await import('../fixtures/processes.js');
    await stopAllFixtures();
  }
}
