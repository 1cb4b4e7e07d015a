/**
 * The `pooltest` command (started by main.ts, the entry point), and `pooltest diff` /
 * `pooltest matrix` / `pooltest audit` / `pooltest watch`. Exit codes: 0 as expected (or nothing asserted and nothing broke), 1 a check failed
 * its expectation, the run left state behind, something breaks (`diff`, `--compare`), or with
 * `--strict` a check was inconclusive or the sweep could not finish, 2 pooltest could not run,
 * 130 interrupted (SIGINT/SIGTERM; 129 SIGHUP, 131 SIGQUIT), after cleanup. `pooltest audit` and `pooltest watch` add 3
 * (findings that typically break, no pooler to confirm them).
 */
import { fstatSync } from 'node:fs';
import { isPooltestError, PooltestError } from '../engine/record/errors.js';
import { EARLY_INTERRUPT_MESSAGE, takeEarlySignal } from './early-signals.js';
import { toolVersion } from '../runner/version.js';
import { redactUrl } from '../engine/target/target.js';
import { colorWanted, terminalWidth } from '../reporters/terminal-env.js';
import { parseCli, USAGE } from './args.js';
import { stdoutOutput } from '../common/command-grammar.js';
import { writeTo } from './closed-pipes.js';
import { interruptedCode, interruptedExitCode, watchInterrupts } from './interrupt.js';
import type { CliIo } from './run-command.js';

type Stop = () => Promise<void>;

/** Subcommands with signal handling of their own (or none: Node's default ends them). */
const OWN_SIGNALS = new Set(['audit', 'diff', 'watch', 'matrix', 'drivers']);

async function main(argv: string[]): Promise<number> {
  // The entry point notes early signals for the run command (early-signals.ts); the other
  // commands must not inherit a listener that would swallow Ctrl-C. A signal already noted ends
  // them as it would have before anything started.
  if (OWN_SIGNALS.has(argv[0] ?? '')) {
    const early = takeEarlySignal();
    if (early !== null) {
      // Said as the run command says it: an exit 130 with no word left the user guessing.
      writeTo(process.stderr, `pooltest: INTERRUPTED: ${EARLY_INTERRUPT_MESSAGE}\n`);
      return interruptedExitCode(early);
    }
  }
  if (argv[0] === 'audit') {
    const { auditCommand } = await import('../audit/audit-command.js');
    return auditCommand(argv.slice(1));
  }
  if (argv[0] === 'watch') {
    const { watchCommand } = await import('../watch/watch-command.js');
    return watchCommand(argv.slice(1));
  }
  const io: CliIo = {
    stdout: (t) => writeTo(process.stdout, t),
    stderr: (t) => writeTo(process.stderr, t),
    color: colorWanted(undefined, process.env, process.stdout.isTTY === true),
    tty: process.stderr.isTTY === true,
    width: terminalWidth(process.stdout.columns),
    env: process.env,
    sameStream: sameDestination(1, 2),
  };
  if (argv[0] === 'matrix') {
    const { matrixCommand } = await import('./matrix-command.js');
    return matrixCommand(argv.slice(1), io);
  }
  if (argv[0] === 'drivers') {
    const { driversCommand } = await import('./drivers-command.js');
    return driversCommand(argv.slice(1), io);
  }
  if (argv[0] === 'diff') {
    const { diffCommand } = await import('./diff-command.js');
    return diffCommand(argv.slice(1), io);
  }
  const opts = parseCli(argv);
  if (opts.help) return print(`${USAGE}\n`);
  if (opts.version) return print(`${toolVersion()}\n`);
  if (opts.list || opts.listProfiles) {
    const { listCommand } = await import('./list-command.js');
    return listCommand(opts, (t) => writeTo(process.stdout, t));
  }
  io.color = colorWanted(opts.color, process.env, process.stdout.isTTY === true);
  // A report on standard output (`--json -`) keeps it to itself: the terminal report goes to
  // stderr, with the progress, so that `pooltest --json - | jq` reads JSON only.
  if (stdoutOutput(opts) !== null) {
    io.stdout = io.stderr;
    io.color = colorWanted(opts.color, process.env, process.stderr.isTTY === true);
    io.sameStream = true;
  }
  // What only the run command needs (the engine, the check runner, the catalogue, the
  // reporters) is loaded here: the subcommands, --help, --version and --list load none of it.
  const [{ loadExpectations }, { selectChecks }, { checkOutputs }, { startEndpoints }, { runCommand }] =
    await Promise.all([
      import('../runner/expectations.js'),
      import('../runner/run.js'),
      import('./outputs.js'),
      import('./endpoints.js'),
      import('./run-command.js'),
    ]);
  let stopEmbedded: Stop | null = null;
  // SIGINT/SIGTERM/SIGHUP/SIGQUIT: the run stops, sweeps and reports, then we exit 130 (129
  // after SIGHUP, 131 after SIGQUIT; see interrupt.ts).
  const interrupt = watchInterrupts({ stopEmbedded: () => stopEmbedded });
  io.signal = interrupt.signal;
  io.quit = interrupt.quit;
  try {
    // Expectations and the selection (selectChecks refuses one that leaves no check) are
    // validated before anything starts or connects.
    const expectations = opts.expect !== undefined ? loadExpectations(opts.expect) : null;
    selectChecks(opts.only, opts.skip);
    // So are the output files: a path that cannot be written costs no run.
    checkOutputs(opts);
    // A signal while the command loaded: start no fixture only to stop it again.
    if (interrupt.signal.aborted) throw new PooltestError('INTERRUPTED', EARLY_INTERRUPT_MESSAGE);
    const started = await startEndpoints(opts, process.env, (t) => {
      if (!opts.quiet) io.stderr(`${t}\n`);
    }).catch((error: unknown) => {
      // A terminal's Ctrl-C reaches the fixture's helper commands too (initdb, cp, postgres
      // --single share our process group), so the start fails with "initdb ... exited with
      // null": that is the interruption, not a fault to report. The registry removes what the
      // start left (the half-built template, the servers' folders).
      if (interrupt.signal.aborted && !(isPooltestError(error) && error.code === 'INTERRUPTED'))
        throw new PooltestError(
          'INTERRUPTED',
          'interrupted while starting the throwaway PostgreSQL and PgBouncer; they were stopped, nothing to clean up',
        );
      throw error;
    });
    stopEmbedded = started?.stop ?? null;
    const code = await runCommand(
      opts,
      {
        target: started?.target ?? opts.target,
        direct: opts.direct ?? started?.direct,
        profile: expectations ?? opts.profile ?? started?.profile ?? undefined,
        fixture: started?.fixture ?? false,
      },
      io,
    ).catch(async (error: unknown) => {
      // The run failed against fixtures pooltest started: if one of them exited by itself
      // (killed, crashed), that is the failure, not what the run's clients made of it
      // (NOT_POSTGRES, STEERING_FAILED...).
      throw started ? await fixtureExitBehind(error) : error;
    });
    // A signal while the fixtures stop (below) gives up nothing of the run: it says so.
    interrupt.reported();
    return interrupt.exitCode(code);
  } finally {
    if (stopEmbedded) await stopEmbedded();
    interrupt.dispose();
  }
}

/** How long a failed run waits for the exit of a fixture it lost to be reported (reaped). */
const FIXTURE_EXIT_WAIT_MS = 500;

/**
 * `error`, or FIXTURE_FAILED naming the fixture server that exited by itself during the run and
 * how it ended, with `error` after it. Waits (bounded) for the exit to be reaped: a killed
 * server's clients can fail a moment before its parent hears of the exit.
 */
async function fixtureExitBehind(error: unknown): Promise<unknown> {
  if (isPooltestError(error) && error.code === 'INTERRUPTED') return error;
  const { unexpectedExits } = await import('../fixtures/processes.js');
  for (const until = Date.now() + FIXTURE_EXIT_WAIT_MS; unexpectedExits().length === 0 && Date.now() < until;)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const exit = unexpectedExits()[0];
  if (!exit) return error;
  const how = exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const then = isPooltestError(error) ? `${error.code}: ${error.message}` : String(error);
  return new PooltestError(
    'FIXTURE_FAILED',
    `the throwaway ${exit.label} (pid ${exit.pid}) ${how} during the run; the run then failed with ${then}`,
    { fixture: exit.label, pid: exit.pid, exitCode: exit.code, signal: exit.signal },
  );
}

/** Whether two file descriptors lead to one file, pipe or terminal (fstat's device and inode). */
function sameDestination(a: number, b: number): boolean {
  try {
    const [x, y] = [fstatSync(a), fstatSync(b)];
    return x.dev === y.dev && x.ino === y.ino && x.rdev === y.rdev;
  } catch {
    return false;
  }
}

function print(text: string): number {
  writeTo(process.stdout, text);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const e = isPooltestError(err)
      ? err
      : new PooltestError('INTERNAL', err instanceof Error ? (err.stack ?? err.message) : String(err));
    writeTo(process.stderr, `pooltest: ${e.code}: ${redactUrl(e.message)}\n`);
    process.exitCode = interruptedCode() ?? 2;
  },
);
