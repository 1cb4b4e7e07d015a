/**
 * `pooltest watch ...`: start the proxy, run the command under it (or wait for Ctrl-C), then
 * write the report files, print the terminal view and decide the exit code.
 *
 * Exit code precedence: a command that failed passes its own code through (the test suite's
 * failure is the first thing CI must see); otherwise 1 when a finding breaks on the pooler the
 * watch was joined with (--report/--target); otherwise 2 when a connection got no answer from
 * the upstream (what it sent was never seen, so "no finding" would be a verdict on nothing);
 * otherwise 0. 2 also when the watch could not run (the upstream refused before the command).
 */
import { writeFile } from 'node:fs/promises';
import { Chalk } from 'chalk';
import { commandFailed } from '../common/command-failure.js';
import { PooltestError } from '../engine/record/errors.js';
import { hostPort } from '../engine/target/target.js';
import { checkOutputPath } from '../reporters/output-file.js';
import { colorWanted } from '../reporters/terminal-env.js';
import { childEnvironment, exitStatus, runChild, type ChildExit } from './child-command.js';
import { parseWatchArgs, WATCH_USAGE, type WatchArgs } from './watch-args.js';
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
  if (args.help) {
    io.stdout.write(WATCH_USAGE);
    return 0;
  }
  const env = io.env ?? process.env;
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
      onWarning: (text) => io.stderr.write(`pooltest watch: warning: ${text}\n`),
    });
    const child = childEnvironment(env, watching, watching.upstream);
    io.stderr.write(`pooltest watch: proxy on ${hostPort(watching.host, watching.port)} -> ${watching.upstreamText}\n`);
    let exit: ChildExit | null = null;
    if (args.command.length > 0) {
      io.stderr.write(`pooltest watch: running ${args.command.join(' ')} with ${child.shown}\n`);
      try {
        exit = await runChild(args.command, child.env);
      } catch (error) {
        await watching.stop();
        throw error;
      }
    } else {
      io.stderr.write(
        `pooltest watch: point the application at it (${child.shown}); Ctrl-C ends the watch and reports\n`,
      );
      await untilInterrupted();
    }
    const report = await watching.stop();
    if (exit !== null) report.command = { argv: args.command, exitCode: exit.exitCode, signal: exit.signal };
    await writeOutputs(report, args);
    const isTty = (io.stdout as { isTTY?: boolean }).isTTY === true;
    const color = colorWanted(args.color, env, isTty);
    io.stdout.write(
      renderWatchTerminal(
        report,
        new Chalk({ level: color ? 1 : 0 }),
        (io.stdout as { columns?: number }).columns ?? 120,
      ),
    );
    return watchExitCode(report, exit);
  } catch (error) {
    return commandFailed('watch', error, io.stderr);
  }
}

/** The precedence documented above. */
export function watchExitCode(report: WatchReport, exit: ChildExit | null): number {
  if (exit !== null) {
    const status = exitStatus(exit);
    if (status !== 0) return status;
  }
  if (report.pooler.basis !== 'typical' && report.summary.breaking > 0) return 1;
  return report.summary.unanswered > 0 ? 2 : 0;
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

async function writeOutputs(report: WatchReport, args: WatchArgs): Promise<void> {
  const outputs: [string | undefined, string, () => string][] = [
    [args.json, '--json', () => `${JSON.stringify(report, null, 2)}\n`],
    [args.markdown, '--markdown', () => renderWatchMarkdown(report)],
    [args.html, '--html', () => renderWatchHtml(report)],
  ];
  for (const [path, flag, render] of outputs) {
    if (path === undefined) continue;
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
    if (path === undefined) continue;
    try {
      checkOutputPath(path);
    } catch (error) {
      throw new PooltestError('OUTPUT_FAILED', `${flag} ${path}: cannot write it (${(error as Error).message})`, {
        file: path,
      });
    }
  }
}
