/**
 * `pooltest audit ...`: parse arguments, run {@link audit}, write the requested files, print
 * the terminal view, and turn the result into an exit code the CI can gate a migration on.
 */
import { writeFile } from 'node:fs/promises';
import { Chalk } from 'chalk';
import { commandFailed } from '../common/command-failure.js';
import { PooltestError } from '../engine/record/errors.js';
import { interruptedExitCode } from '../engine/record/signals.js';
import { colorWanted } from '../reporters/terminal-env.js';
import { terminalWidth } from '../reporters/terminal-env.js';
import { audit } from './audit.js';
import { AUDIT_USAGE, parseAuditArgs, type AuditArgs } from './audit-args.js';
import { stdoutOutput } from '../common/command-grammar.js';
import { STDOUT } from '../common/option-table.js';
import { toolVersion } from '../runner/version.js';
import { renderAuditMarkdown } from './audit-markdown.js';
import { mergeAuditFiles } from './audit-merge.js';
import { renderAuditTerminal } from './audit-terminal.js';
import { readProgress } from './read-progress.js';
import { exitCode } from './exit-code.js';

/** Where the command writes; defaults to the process's streams. */
export interface AuditIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** For `--log -`; defaults to process.stdin. */
  stdin?: NodeJS.ReadableStream;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `pooltest audit` with `argv` (the arguments after `audit`). Returns the exit code (see
 * {@link exitCode}); 2 when the audit could not run (the error code is printed).
 */
export async function auditCommand(
  argv: string[],
  io: AuditIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let args: AuditArgs;
  try {
    args = parseAuditArgs(argv);
  } catch (error) {
    return commandFailed('audit', error, io.stderr);
  }
  if (args.help || args.version) {
    io.stdout.write(args.help ? AUDIT_USAGE : `${toolVersion()}\n`);
    return 0;
  }
  // A document on standard output (`--json -`) keeps it to itself: the terminal view goes to stderr.
  const view = stdoutOutput(args) !== null ? io.stderr : io.stdout;
  try {
    // Progress on stderr only when it is a terminal: a CI log or a file gets none of it.
    const stderr = io.stderr as { isTTY?: boolean; columns?: number };
    const progress = readProgress({
      write: (t) => io.stderr.write(t),
      isTTY: stderr.isTTY === true && !args.quiet,
      ...(stderr.columns ? { columns: stderr.columns } : {}),
    });
    const report =
      args.merge !== undefined
        ? await mergeAuditFiles(args.merge)
        : await audit({ ...args, progress, ...(io.stdin ? { stdin: io.stdin } : {}) });
    if (args.json !== undefined) await writeOutput(args.json, `${JSON.stringify(report, null, 2)}\n`, '--json', io);
    if (args.markdown !== undefined) await writeOutput(args.markdown, renderAuditMarkdown(report), '--markdown', io);
    const isTty = (view as { isTTY?: boolean }).isTTY === true;
    const color = colorWanted(args.color, io.env ?? process.env, isTty);
    const width = terminalWidth((view as { columns?: number }).columns);
    const chalk = new Chalk({ level: color ? 1 : 0 });
    view.write(renderAuditTerminal(report, chalk, width, { failOnFindings: args.failOnFindings }));
    return exitCode(report, args.failOnFindings);
  } catch (error) {
    return failed(error, io);
  }
}

export { EXIT_UNCONFIRMED, exitCode } from './exit-code.js';

async function writeOutput(path: string, text: string, flag: string, io: AuditIo): Promise<void> {
  if (path === STDOUT) {
    io.stdout.write(text);
    return;
  }
  try {
    await writeFile(path, text);
  } catch (error) {
    throw new PooltestError('BAD_ARGUMENTS', `${flag} ${path}: cannot write it (${(error as Error).message})`, {
      file: path,
    });
  }
}

function failed(error: unknown, io: AuditIo): number {
  const code = commandFailed('audit', error, io.stderr);
  // Interrupted while the --target checks ran (target-run.ts): the signal's exit code, as the main command.
  const signal = error instanceof PooltestError && error.code === 'INTERRUPTED' ? error.detail.signal : null;
  return typeof signal === 'string' ? interruptedExitCode(signal as NodeJS.Signals) : code;
}
