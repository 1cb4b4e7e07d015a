#!/usr/bin/env node
/**
 * The `pooltest` command. Exit codes: 0 as expected (or nothing asserted and nothing broke),
 * 1 a check failed its expectation or the run left state behind, 2 pooltest could not run,
 * 130 interrupted (SIGINT/SIGTERM), after cleanup.
 */
import { isPooltestError, PooltestError } from '../errors.js';
import { PROFILES } from '../profiles/index.js';
import { run, toolVersion } from '../run.js';
import { redactUrl } from '../target.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { writeJsonReport } from '../../reporters/json-reporter.js';
import { colorWanted, renderDiscovery, renderReport } from '../../reporters/terminal-reporter.js';
import { parseCli, USAGE, type CliOptions } from './args.js';
import { Chalk } from 'chalk';

type Stop = () => Promise<void>;

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'audit') {
    const { auditCommand } = await import('../audit/audit-command.js');
    return auditCommand(argv.slice(1));
  }
  const opts = parseCli(argv);
  if (opts.help) return print(`${USAGE}\n`);
  if (opts.version) return print(`${toolVersion()}\n`);
  if (opts.list) return print(listCatalogue());
  if (opts.listProfiles) return print(listProfiles());
  const color = colorWanted(opts.color, process.env, process.stdout.isTTY === true);
  const c = new Chalk({ level: color ? 1 : 0 });
  let stopEmbedded: Stop | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    process.stderr.write(`\npooltest: ${signal}: cleaning up\n`);
    void interrupted(stopEmbedded);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let target = opts.target;
    let direct = opts.direct;
    let profile = opts.profile;
    if (!target && !hasEnvTarget()) {
      const embedded = await startEmbedded(opts);
      stopEmbedded = embedded.stop;
      target = embedded.target;
      direct ??= embedded.direct;
      profile ??= 'pgbouncer-transaction';
    }
    const report = await run({
      target, user: opts.user, password: opts.password, database: opts.database, direct, profile,
      only: opts.only, skip: opts.skip, timeoutMs: opts.timeoutMs, maxPool: opts.maxPool,
      onDiscovery: (d) => {
        if (!opts.quiet) process.stderr.write(`${renderDiscovery(d, c)}\n`);
      },
      onCheckResult: (r) => {
        if (!opts.quiet) process.stderr.write(c.dim(`  ${r.id}: ${r.outcome ?? 'no outcome'} (${r.verdict}, ${r.durationMs} ms)\n`));
      },
    });
    if (opts.json) writeJsonReport(report, opts.json);
    const text = renderReport(report, { color, verbose: opts.verbose, width: process.stdout.columns ?? 120 });
    process.stdout.write(opts.quiet ? text.split('\n').filter((l) => /^(Summary|Sweep)/.test(l.replace(/\x1b\[[0-9;]*m/g, ''))).join('\n') + '\n' : text);
    return report.summary.exitCode;
  } finally {
    if (stopEmbedded) await stopEmbedded();
  }
}

/** PGHOST or PGPORT in the environment name a target, as they would for psql. */
function hasEnvTarget(): boolean {
  return Boolean(process.env.PGHOST || process.env.PGPORT);
}

/** The embedded default: a throwaway PostgreSQL and PgBouncer in transaction mode, pool of 2. */
async function startEmbedded(opts: CliOptions): Promise<{ target: string; direct: string; stop: Stop }> {
  if (!opts.quiet) process.stderr.write('No --target: starting a throwaway PostgreSQL and PgBouncer (transaction mode, pool of 2)...\n');
  const { startStack } = await import('../../fixtures/stack.js');
  const stack = await startStack('pgbouncer-transaction');
  return { target: stack.target.url(), direct: stack.postgres.url(), stop: () => stack.stop() };
}

let exiting = false;

/** Ctrl-C or SIGTERM: stop whatever pooltest started, then exit 130. */
async function interrupted(stopEmbedded: Stop | null): Promise<void> {
  if (exiting) return;
  exiting = true;
  const deadline = setTimeout(() => process.exit(130), 10_000);
  try {
    if (stopEmbedded) await stopEmbedded();
    const { stopAllFixtures } = await import('../../fixtures/processes.js');
    await stopAllFixtures();
  } finally {
    clearTimeout(deadline);
    process.exit(130);
  }
}

function listCatalogue(): string {
  const w = Math.max(...CATALOGUE.map((c) => c.id.length));
  return CATALOGUE.map((c) => `${c.id.padEnd(w)}  ${c.severity.padEnd(12)}  ${c.title}`).join('\n') + '\n';
}

function listProfiles(): string {
  return PROFILES.map((p) => {
    const rows = Object.entries(p.expect).map(([id, e]) => `    ${id.padEnd(30)} ${e.outcome.padEnd(12)} ${e.ref}`);
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
    process.exitCode = 2;
  },
);
