/**
 * `pooltest drivers`: real drivers (asyncpg, psycopg 3, psycopg2, pgjdbc, ruby-pg, node-postgres,
 * postgres.js, pgx, PDO pgsql) and frameworks (ActiveRecord, Django, SQLAlchemy) through the
 * target, each in its default and its advised configurations, steered
 * with pooltest's holders (drivers/). Exit codes: 0 done (no expectation missed), 1 a result
 * missed its --expect expectation (or, with --strict, something was inconclusive), 2 pooltest
 * could not run, 130 interrupted (129 SIGHUP, 131 SIGQUIT).
 */
import { readFileSync } from 'node:fs';
import { parseJsonBytes } from '../engine/record/json-file.js';
import { PooltestError } from '../engine/record/errors.js';
import { redactUrl, resolveRelated, resolveTarget } from '../engine/target/target.js';
import { DRIVERS, selectDrivers } from '../drivers/catalogue.js';
import { runDrivers } from '../drivers/run-drivers.js';
import { DRIVER_SCENARIOS, type DriverScenarioId } from '../drivers/tags.js';
import { DRIVER_OUTCOMES } from '../drivers/judge.js';
import { ServerLogReader } from '../drivers/server-log.js';
import { DRIVER_PROFILES } from '../drivers/profiles.js';
import { renderDriversHtml } from '../reporters/drivers-html.js';
import { renderDriversJunit } from '../reporters/drivers-junit.js';
import { renderDriversMarkdown, renderDriversTerminal } from '../reporters/drivers-text.js';
import { stdoutOutput } from '../common/command-grammar.js';
import { readOrAnswer } from './command-line.js';
import type { GivenOption } from '../common/command-args.js';
import { DRIVERS_GRAMMAR } from './drivers-grammar.js';
import { checkOutputs, writeOutput } from './outputs.js';
import { watchInterrupts } from './interrupt.js';
import type { CliIo } from './run-command.js';

export async function driversCommand(argv: string[], io: Pick<CliIo, 'stdout' | 'stderr' | 'env'>): Promise<number> {
  const parsed = readOrAnswer(DRIVERS_GRAMMAR, argv, io.stdout);
  if (parsed === null) return 0;
  const v = parsed.shared;
  const own = ownValues(parsed.own);
  if (own.list) {
    io.stdout(listDrivers());
    return 0;
  }
  const selected = selectDrivers(
    (own.driver ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  if ('unknown' in selected)
    throw new PooltestError(
      'BAD_ARGUMENTS',
      `unknown driver ${selected.unknown.join(', ')}; known: ${DRIVERS.map((d) => d.id).join(', ')}`,
    );
  let expect: Record<string, string> | undefined;
  if (v.profile !== undefined) {
    const profile = DRIVER_PROFILES[v.profile];
    if (!profile)
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `--profile ${v.profile}: pooltest drivers has expected outcomes for ${Object.keys(DRIVER_PROFILES).join(' and ')} only (the checks' other profiles say nothing about drivers); give your own with --expect FILE`,
      );
    expect = profile();
  }
  // An --expect file overrides the profile's entries it names.
  if (own.expect !== undefined) expect = { ...expect, ...readExpectations(own.expect) };
  checkOutputs(v);
  // A log asked for by name that cannot be read is refused before anything starts.
  if (own.serverLog !== undefined) {
    const log = ServerLogReader.open(own.serverLog);
    if ('unreadable' in log) throw new PooltestError('BAD_ARGUMENTS', `--server-log: ${log.unreadable}`);
  }
  const scenarios = (own.scenario ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknownScenarios = scenarios.filter((s) => !(DRIVER_SCENARIOS as readonly string[]).includes(s));
  if (unknownScenarios.length > 0)
    throw new PooltestError(
      'BAD_ARGUMENTS',
      `unknown scenario ${unknownScenarios.join(', ')}; known: ${DRIVER_SCENARIOS.join(', ')}`,
    );
  const stepMs = v.timeoutMs ?? 10_000;
  if (own.stack !== undefined && (v.target !== undefined || v.host !== undefined || v.port !== undefined))
    throw new PooltestError('BAD_ARGUMENTS', '--stack and --target (or -h/-p) exclude each other');
  // A document on standard output keeps it to itself: the terminal view goes to stderr.
  const view = stdoutOutput(v) !== null ? io.stderr : io.stdout;
  let stop: (() => Promise<void>) | null = null;
  // Ctrl-C (SIGINT, SIGTERM, SIGHUP, SIGQUIT): Node's default killed the command at once, with
  // no word and no exit code of its own (a shell showed 130), and a --stack was never stopped
  // in order. Now the run is given up, the stack stopped, the INTERRUPTED line said, and the
  // exit is the signal's (130, 129, 131); the agents are killed as the process exits
  // (drivers/agent-process.ts). There is no sweep to promise, unlike the run command's line.
  const interrupt = watchInterrupts({
    stopEmbedded: () => stop,
    firstLine: (sig) =>
      `\npooltest: ${sig}: stopping the drivers run: its agents are ended and its sessions closed${own.stack !== undefined ? ', then the throwaway stack is stopped' : ''} (send it again to quit at once)\n`,
    forcedLine: (why) => `pooltest: ${why}: quitting at once; no report is written\n`,
  });
  try {
    let targetText = v.target;
    let directText = v.direct;
    let serverLog = own.serverLog;
    const stackName = own.stack;
    if (stackName !== undefined) {
      const { startStack, STACK_NAMES, SOURCE_STACK_NAMES } = await import('../fixtures/stack.js');
      // The Debian packages' stacks and the poolers built from their release tarballs.
      const known = [...STACK_NAMES, ...SOURCE_STACK_NAMES];
      const name = known.find((n) => n === stackName);
      if (!name) throw new PooltestError('BAD_ARGUMENTS', `unknown stack "${stackName}"; known: ${known.join(', ')}`);
      const stack = await startStack(name);
      stop = () => stack.stop();
      if (interrupt.signal.aborted) throw interrupted(interrupt.signal, 'while starting the throwaway stack');
      targetText = stack.target.url();
      directText ??= stack.postgres.url();
      serverLog ??= stack.postgres.logFile;
    }
    if (targetText === undefined && v.host === undefined && v.port === undefined && !io.env.PGHOST && !io.env.PGPORT)
      throw new PooltestError(
        'BAD_ARGUMENTS',
        'pooltest drivers needs --target (or -h/-p, or PGHOST/PGPORT) or --stack (see pooltest drivers --help)',
      );
    const warn = (message: string): void => io.stderr(`pooltest: warning: ${message}\n`);
    const target = resolveTarget(
      {
        target: targetText,
        host: v.host,
        port: v.port,
        user: v.user,
        password: v.password,
        database: v.database,
      },
      io.env,
      warn,
    );
    // What --direct does not spell out (user, password, database) comes from the target, as for a run.
    const direct = directText !== undefined ? resolveRelated(directText, target, io.env, warn) : null;
    const report = await untilInterrupted(
      interrupt.signal,
      runDrivers(target, {
        drivers: selected,
        direct,
        ...(scenarios.length > 0 ? { scenarios: scenarios as DriverScenarioId[] } : {}),
        ...(serverLog !== undefined ? { serverLog } : {}),
        stepMs,
        ...(expect ? { expect } : {}),
        onResult: (r) => {
          // Given up, the run goes on until the process exits: its agents' deaths are no results.
          if (!v.quiet && !interrupt.signal.aborted) io.stderr(`  ${r.id}: ${r.outcome ?? 'inconclusive'}\n`);
        },
      }),
    );
    // Redacted like every report: a driver's message could quote a connection string.
    if (v.json !== undefined) writeOutput(v.json, `${redactUrl(JSON.stringify(report, null, 2))}\n`);
    if (v.junit !== undefined) writeOutput(v.junit, renderDriversJunit(report));
    if (v.markdown !== undefined) writeOutput(v.markdown, renderDriversMarkdown(report));
    if (v.html !== undefined) writeOutput(v.html, renderDriversHtml(report));
    view(renderDriversTerminal(report));
    const failed = report.results.some((r) => r.verdict === 'fail');
    const unsure = report.results.some((r) => r.verdict === 'inconclusive');
    return failed || (own.strict && unsure) ? 1 : 0;
  } finally {
    await stop?.();
    interrupt.dispose();
  }
}

/** The drivers run, or INTERRUPTED at the first signal (the run has no signal of its own to stop at). */
function untilInterrupted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(interrupted(signal, 'before the drivers ran'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(interrupted(signal, 'before the drivers run finished'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function interrupted(signal: AbortSignal, when: string): PooltestError {
  const sig = signal.reason instanceof PooltestError ? signal.reason.detail?.signal : undefined;
  return new PooltestError(
    'INTERRUPTED',
    `interrupted${typeof sig === 'string' ? ` by ${sig}` : ''} ${when}: no report is written; run it again for results`,
  );
}

/** The options of drivers' own, by name. */
function ownValues(given: readonly GivenOption[]): {
  stack?: string;
  driver?: string;
  list: boolean;
  expect?: string;
  strict: boolean;
  serverLog?: string;
  scenario?: string;
} {
  const value = (name: string): string | undefined => [...given].reverse().find((o) => o.name === name)?.values[0];
  const has = (name: string): boolean => given.some((o) => o.name === name);
  const out: ReturnType<typeof ownValues> = { list: has('list'), strict: has('strict') };
  for (const [key, name] of [
    ['stack', 'stack'],
    ['driver', 'driver'],
    ['expect', 'expect'],
    ['serverLog', 'server-log'],
    ['scenario', 'scenario'],
  ] as const) {
    const v = value(name);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function listDrivers(): string {
  const w = Math.max(...DRIVERS.map((d) => d.id.length));
  return (
    DRIVERS.map((d) => {
      const configs = d.configs.map((c) => `${c.name}${c.advised ? ' (advised)' : ''}`).join('; ');
      const framework = d.builtOn
        ? `\n${''.padEnd(w)}  framework on: ${d.builtOn}${d.migration ? `\n${''.padEnd(w)}  migration: ${d.migration}` : ''}`
        : '';
      return `${d.id.padEnd(w)}  ${d.title}\n${''.padEnd(w)}  names: ${d.statementNames}\n${''.padEnd(w)}  configurations: ${configs}\n${''.padEnd(w)}  cursor: ${d.cursor ?? 'none'}\n${''.padEnd(w)}  batch: ${d.batch ?? 'none (no batch or pipeline API)'}${framework}`;
    }).join('\n') + '\n'
  );
}

/** An --expect file: an object of result id to outcome label. */
export function readExpectations(file: string): Record<string, string> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new PooltestError('BAD_ARGUMENTS', `--expect ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const read = parseJsonBytes(bytes);
  if (!read.ok) throw new PooltestError('BAD_ARGUMENTS', `--expect ${file} ${read.problem}`);
  const value = read.value;
  // The labels and scenarios the judges give (a batch can stall or split, a framework runs its
  // migration): a list of its own here refused what the built-in profiles themselves expect.
  const labels = Object.keys(DRIVER_OUTCOMES);
  const resultIdPattern = new RegExp(`^[^/]+/(${DRIVER_SCENARIOS.join('|')})@.+$`);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new PooltestError('BAD_ARGUMENTS', `--expect ${file}: an object of "driver/scenario@config": outcome`);
  for (const [id, outcome] of Object.entries(value))
    if (typeof outcome !== 'string' || !labels.includes(outcome) || !resultIdPattern.test(id))
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `--expect ${file}: "${id}": ${JSON.stringify(outcome)} is not driver/scenario@config: ${labels.join('|')} (scenarios: ${DRIVER_SCENARIOS.join(', ')})`,
      );
  return value as Record<string, string>;
}
