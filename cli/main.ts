#!/usr/bin/env node
/**
 * The `pooltest` command, and `pooltest diff` / `pooltest matrix` / `pooltest audit`. Exit codes: 0 as expected (or
 * nothing asserted and nothing broke), 1 a check failed its expectation, the run left state
 * behind, or something breaks (`diff`, `--compare`), 2 pooltest could not run, 130 interrupted
 * (SIGINT/SIGTERM), after cleanup.
 */
import { isPooltestError, PooltestError } from '../engine/errors.js';
import { loadExpectations } from '../runner/expectations.js';
import { PROFILES } from '../profiles/index.js';
import { selectChecks, toolVersion } from '../runner/run.js';
import { redactUrl } from '../engine/target.js';
import { CATALOGUE } from '../suites/catalogue.js';
import { colorWanted } from '../reporters/terminal-reporter.js';
import { parseCli, USAGE } from './args.js';
import { startEndpoints } from './endpoints.js';
import { wasInterrupted, watchInterrupts } from './interrupt.js';
import { runCommand, type CliIo } from './run-command.js';

type Stop = () => Promise<void>;

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'audit') {
    const { auditCommand } = await import('../audit/audit-command.js');
    return auditCommand(argv.slice(1));
  }
  const io: CliIo = {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    color: colorWanted(undefined, process.env, process.stdout.isTTY === true),
    tty: process.stderr.isTTY === true,
    width: process.stdout.columns ?? 120,
    env: process.env,
  };
  if (argv[0] === 'diff') {
    const { diffCommand } = await import('./diff-command.js');
    return diffCommand(argv.slice(1), io);
  }
  if (argv[0] === 'matrix') {
    const { matrixCommand } = await import('./matrix-command.js');
    return matrixCommand(argv.slice(1), io);
  }
  const opts = parseCli(argv);
  if (opts.help) return print(`${USAGE}\n`);
  if (opts.version) return print(`${toolVersion()}\n`);
  if (opts.list) return print(listCatalogue());
  if (opts.listProfiles) return print(listProfiles());
  io.color = colorWanted(opts.color, process.env, process.stdout.isTTY === true);
  let stopEmbedded: Stop | null = null;
  // SIGINT/SIGTERM: the run stops, sweeps and reports, then we exit 130 (see interrupt.ts).
  const interrupt = watchInterrupts({ stopEmbedded: () => stopEmbedded });
  io.signal = interrupt.signal;
  try {
    // Expectations and the selection are validated before anything starts or connects.
    const expectations = opts.expect !== undefined ? loadExpectations(opts.expect) : null;
    selectChecks(opts.only, opts.skip);
    const started = await startEndpoints(opts, process.env, (t) => {
      if (!opts.quiet) io.stderr(`${t}\n`);
    });
    stopEmbedded = started?.stop ?? null;
    return interrupt.exitCode(await runCommand(opts, {
      target: started?.target ?? opts.target,
      direct: opts.direct ?? started?.direct,
      profile: expectations ?? opts.profile ?? started?.profile ?? undefined,
      fixture: started?.fixture ?? false,
    }, io));
  } finally {
    if (stopEmbedded) await stopEmbedded();
    interrupt.dispose();
  }
}

function listCatalogue(): string {
  const w = Math.max(...CATALOGUE.map((c) => c.id.length));
  return CATALOGUE.map((c) => `${c.id.padEnd(w)}  ${c.severity.padEnd(12)}  ${c.title}`).join('\n') + '\n';
}

function listProfiles(): string {
  return PROFILES.map((p) => {
    // The note carries caveats (source-only, configuration-dependent): never drop it.
    const rows = Object.entries(p.expect).map(([id, e]) => `    ${id.padEnd(30)} ${e.outcome.padEnd(14)} ${e.ref}${e.note ? `\n    ${''.padEnd(30)} ${''.padEnd(14)} note: ${e.note}` : ''}`);
    return [`${p.name}: ${p.title} (${p.versions})`, `  ref: ${p.ref}`, ...rows].join('\n');
  }).join('\n\n') + '\n';
}

function print(text: string): number {
  process.stdout.write(text);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const e = isPooltestError(err) ? err : new PooltestError('INTERNAL', err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.stderr.write(`pooltest: ${e.code}: ${redactUrl(e.message)}\n`);
    process.exitCode = wasInterrupted() ? 130 : 2;
  },
);
