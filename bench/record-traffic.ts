/**
 * Records real event logs of the traffic checks (transactions/, statement/, cancel/,
 * capacity/: how transactions, cancels and crowds of clients get through, rather than what
 * session state does) against every fixture, for the judges' unit tests, and prints the
 * outcome of each check per fixture with its duration.
 *
 *   node dist/bench/record-traffic.js [--pg 18] [--out DIR | --no-write] [fixture...]
 *
 * Each fixture runs twice: the traffic checks against the stack as it is, then capacity/burst
 * (fixtures only) against the same kind of stack on a Postgres with max_connections = 25. The
 * two records are stored together as test/recorded/<fixture>-traffic.json.
 */
import { TRAFFIC_AREAS } from './traffic-areas.js';
import { afterRecording } from './fixture-outcomes-file.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from '../runner/run.js';
import { STACK_NAMES, startStack, type StackName } from '../fixtures/stack.js';
import type { PostgresOptions } from '../fixtures/postgres-fixture.js';
import type { PostgresVersionChoice } from '../fixtures/postgres-binaries.js';
import type { CheckResult, Report } from '../engine/types.js';
import { burst as burstCheck } from '../suites/capacity/burst.check.js';

const AREAS = TRAFFIC_AREAS;
/** The server limit capacity/burst is meant for (see its doc comment). */
const BURST_MAX_CONNECTIONS = 25;

interface Args {
  version: PostgresOptions['version'];
  out: string | null;
  stacks: StackName[];
}

function parseArgs(argv: string[]): Args {
  const args: Args = { version: 'system', out: path.resolve('test/recorded'), stacks: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--pg') args.version = versionChoice(argv[++i]);
    else if (a === '--out') args.out = path.resolve(argv[++i]!);
    else if (a === '--no-write') args.out = null;
    else if ((STACK_NAMES as string[]).includes(a)) args.stacks.push(a as StackName);
    else throw new Error(`unknown argument ${a}; fixtures: ${STACK_NAMES.join(', ')}`);
  }
  if (args.stacks.length === 0) args.stacks = [...STACK_NAMES];
  return args;
}

function versionChoice(v: string | undefined): PostgresVersionChoice {
  const n = Number(v);
  if (n === 14 || n === 15 || n === 16 || n === 17 || n === 18) return n;
  throw new Error(`--pg takes 14 to 18, not ${v}`);
}

async function runOn(name: StackName, postgres: PostgresOptions, only: string[], fixture: boolean): Promise<Report> {
  const stack = await startStack(name, { postgres });
  try {
    return await run({ target: stack.target.url(), direct: stack.postgres.url(), only, fixture });
  } finally {
    await stack.stop();
  }
}

function line(name: string, checks: CheckResult[], report: Report): string {
  const cells = checks.map((c) => `${c.id}=${c.outcome ?? 'inconclusive'} (${c.durationMs} ms)`);
  const sweep = report.sweep?.clean ? 'sweep clean' : `SWEEP DIRTY: ${report.sweep?.leftovers.join('; ')}`;
  return `${name} [${report.discovery.serverVersion.split(' ')[0]}]: ${cells.join(' ')}; ${sweep}\n`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.out) mkdirSync(args.out, { recursive: true });
  for (const name of args.stacks) {
    const traffic = await runOn(name, { version: args.version }, AREAS, false);
    const burst = await runOn(
      name,
      { version: args.version, maxConnections: BURST_MAX_CONNECTIONS },
      [burstCheck.id],
      true,
    );
    const checks = [...traffic.checks.filter((c) => c.id !== burstCheck.id), ...burst.checks];
    process.stdout.write(line(name, checks, traffic));
    if (!burst.sweep?.clean) process.stdout.write(`  burst run: SWEEP DIRTY: ${burst.sweep?.leftovers.join('; ')}\n`);
    if (!args.out) continue;
    const { steps: _steps, ...discovery } = traffic.discovery;
    const { steps: _burstSteps, ...burstDiscovery } = burst.discovery;
    const record = {
      fixture: name,
      discovery,
      burstDiscovery,
      checks: Object.fromEntries(checks.map((c) => [c.id, { outcome: c.outcome, steps: c.steps }])),
    };
    writeFileSync(path.join(args.out, `${name}-traffic.json`), `${JSON.stringify(record, null, 1)}\n`);
  }
  if (args.out) afterRecording(args.out);
}

await main();
