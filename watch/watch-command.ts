/**
 * `pooltest watch ...`: start the proxy, run the command under it (or wait for Ctrl-C), then
 * write the report files, print the terminal view and decide the exit code.
 *
 * Exit code precedence: a command that failed passes its own code through (the test suite's
 * failure is the first thing CI must see); otherwise 1 when a finding breaks on the pooler the
 * watch was joined with (--report/--target), or typically breaks with --fail-on-findings;
 * otherwise 2 when a connection got no answer from the upstream (what it sent was never seen,
 * so "no finding" would be a verdict on nothing); otherwise 3 when findings typically break and
 * no pooler was given to confirm it; otherwise 0. 0, 1 and 3 are the audit's rule
 * (audit/findings-exit.ts). 2 also when the watch could not run (the upstream refused before
 * the command).
 */
import { writeFile } from 'node:fs/promises';
import { Chalk } from 'chalk';
import { commandFailed } from '../common/command-failure.js';
import { findingsExitCode, findingsExitMeaning, findingsVerdict } from '../audit/findings-exit.js';
import { PooltestError } from '../engine/record/errors.js';
import { hostPort } from '../engine/target/target.js';
import { checkOutputPath } from '../reporters/output-file.js';
import { colorWanted } from '../reporters/terminal-env.js';
import { childEnvironment, exitStatus, runChild, type ChildExit } from './child-command.js';
import { parseWatchArgs, WATCH_USAGE, type WatchArgs } from './watch-args.js';
import { stdoutOutput } from '../common/command-grammar.js';
import { STDOUT } from '../common/option-table.js';
import { toolVersion } from '../runner/version.js';
import { renderWatchHtml } from './watch-html.js';
import { renderWatchMarkdown, renderWatchTerminal } from './watch-render.js';
import type { WatchReport } from './watch-types.js';
import { startWatch } from './watch.js';

export interface WatchIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
}

/** Runs `pooltest watch` with `argv` (the arguments after `watch`); returns the exit code. */
export async function watchCommand(
  argv: string[],
  io: WatchIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let args: WatchArgs;
  try {
    args = parseWatchArgs(argv);
  } catch (error) {
    return commandFailed('watch', error, io.stderr);
  }
  if (args.help || args.version) {
    io.stdout.write(args.help ? WATCH_USAGE : `${toolVersion()}\n`);
    return 0;
  }
  const env = io.env ?? process.env;
  // A document on standard output (`--json -`) keeps it to itself: the terminal view goes to stderr.
  const view = stdoutOutput(args) !== null ? io.stderr : io.stdout;
  try {
    // A report path that cannot be written must not cost the whole workload.
    checkOutputs(args);
    const watching = await startWatch({
      upstream: args.upstream!,
      listenHost: args.listenHost,
      listenPort: args.listenPort,
      connectTimeoutMs: args.connectTimeoutMs,
      env,
      ...(args.report !== undefined ? { report: args.report } : {}),
      ...(args.target !== undefined ? { target: args.target } : {}),
      ...(args.host !== undefined ? { host: args.host } : {}),
      ...(args.port !== undefined ? { port: args.port } : {}),
      ...(args.user !== undefined ? { user: args.user } : {}),
      ...(args.database !== undefined ? { database: args.database } : {}),
      ...(args.password !== undefined ? { password: args.password } : {}),
      onWarning: (text) => io.stderr.write(`pooltest watch: warning: ${text}\n`),
    });
    const child = childEnvironment(env, watching, watching.upstream);
    if (!args.quiet)
      io.stderr.write(
        `pooltest watch: proxy on ${hostPort(watching.host, watching.port)} -> ${watching.upstreamText}\n`,
      );
    let exit: ChildExit | null = null;
    if (args.command.length > 0) {
      if (!args.quiet) io.stderr.write(`pooltest watch: running ${args.command.join(' ')} with ${child.shown}\n`);
      try {
        exit = await runChild(args.command, child.env);
      } catch (error) {
        await watching.stop();
        throw error;
      }
    } else {
      // Listening before the line says so: a script that signals as soon as it reads the line
      // found Node's default still in place now and then (killed, no report).
      const interrupted = untilInterrupted();
      io.stderr.write(
        `pooltest watch: point the application at it (${child.shown}); Ctrl-C ends the watch and reports\n`,
      );
      await interrupted;
    }
    const report = await watching.stop();
    if (exit !== null) report.command = { argv: args.command, exitCode: exit.exitCode, signal: exit.signal };
    await writeOutputs(report, args, io);
    const isTty = (view as { isTTY?: boolean }).isTTY === true;
    const color = colorWanted(args.color, env, isTty);
    const chalk = new Chalk({ level: color ? 1 : 0 });
    view.write(renderWatchTerminal(report, chalk, (view as { columns?: number }).columns ?? 120));
    const code = watchExitCode(report, exit, args.failOnFindings);
    // As the audit's last line: what this run's exit code means (a 3 without it reads as a crash).
    view.write(`${chalk.dim(exitMeaningLine(report, exit, args.failOnFindings, code))}
`);
    return code;
  } catch (error) {
    return commandFailed('watch', error, io.stderr);
  }
}

/** The precedence documented above. */
export function watchExitCode(report: WatchReport, exit: ChildExit | null, failOnFindings = false): number {
  if (exit !== null) {
    const status = exitStatus(exit);
    if (status !== 0) return status;
  }
  const findings = findingsExitCode(findingsVerdict(report, report.summary.breaking), failOnFindings);
  if (findings === 1) return 1;
  if (report.summary.unanswered > 0) return 2;
  return findings;
}

/** What `code` (from {@link watchExitCode}) means for this run, in one line. */
function exitMeaningLine(report: WatchReport, exit: ChildExit | null, failOnFindings: boolean, code: number): string {
  if (exit !== null && exitStatus(exit) !== 0) return `exit ${code}: the command failed (its own exit code)`;
  // 2 comes before 3 and 0, never before 1 (watchExitCode): a 2 here is the unseen connections.
  if (code === 2) return 'exit 2: some connection(s) got no answer from the upstream and were not seen';
  return findingsExitMeaning(findingsVerdict(report, report.summary.breaking), failOnFindings);
}

function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.removeListener('SIGINT', done);
      process.removeListener('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

async function writeOutputs(report: WatchReport, args: WatchArgs, io: WatchIo): Promise<void> {
  const outputs: [string | undefined, string, () => string][] = [
    [args.json, '--json', () => `${JSON.stringify(report, null, 2)}\n`],
    [args.markdown, '--markdown', () => renderWatchMarkdown(report)],
    [args.html, '--html', () => renderWatchHtml(report)],
  ];
  for (const [path, flag, render] of outputs) {
    if (path === undefined) continue;
    if (path === STDOUT) {
      io.stdout.write(render());
      continue;
    }
    try {
      await writeFile(path, render());
    } catch (error) {
      throw new PooltestError('OUTPUT_FAILED', `${flag} ${path}: cannot write it (${(error as Error).message})`, {
        file: path,
      });
    }
  }
}

/** Throws OUTPUT_FAILED for the first report path that cannot be written (see output-file.ts). */
function checkOutputs(args: WatchArgs): void {
  for (const [path, flag] of [
    [args.json, '--json'],
    [args.markdown, '--markdown'],
    [args.html, '--html'],
  ] as const) {
    if (path === undefined || path === STDOUT) continue;
    try {
      checkOutputPath(path);
    } catch (error) {
      throw new PooltestError('OUTPUT_FAILED', `${flag} ${path}: cannot write it (${(error as Error).message})`, {
        file: path,
      });
    }
  }
}
