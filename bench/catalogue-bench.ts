/**
 * `npm run bench`: how long pooltest takes, measured rather than asserted.
 *
 * 1. Fixture start: PostgreSQL + PgBouncer (transaction mode, pool of 2), cold (a fresh
 *    template cache, so initdb runs) and warm (template reused), median of several starts.
 * 2. Per network condition (loopback; then the same fixture behind delaying TCP proxies, 10 ms
 *    each way by default), several rounds of, interleaved so that noise hits all alike:
 *    - the floor: a fresh Node process that starts Vitest and sends one query through the target;
 *    - the whole catalogue as a new user runs it (a fresh `pooltest` process), wall time;
 *    - the catalogue in process, broken down: discovery, runner, between checks, each check, sweep.
 *    Printed as medians and ratios to the floor of the same condition; every sample goes to JSON.
 *
 * Behind the proxies, the bench also counts the run's sequential round trips on the wire
 * (bench/speed/round-trips.ts), per phase and per check, beside the count derived from the
 * wall times ((time there - time on loopback) / round trip). What inside a check those round
 * trips wait for (logins, steps, the tidy-up): bench/speed/trace-main.ts, one traced run.
 *
 * Flags: --runs N (default 5, or BENCH_RUNS), --delay MS[,MS...] (each way, one condition per
 * value; 0 skips the latency condition), --json FILE (default
 * .pooltest/bench/catalogue-<time>.json), --no-start (skip 1), --handshake (the proxies delay each
 * new connection's TCP handshake by a round trip as well, as a real path does; without it they
 * accept on loopback, so every login costs a round trip less than at that distance), --only
 * IDS (check ids or areas, comma-separated, as pooltest's own --only: measure some checks).
 *
 * Before and after a set of checks lands (issue 38: the wire checks should cost few round
 * trips, a pipeline being one), run the same command on both commits and compare the JSON
 * files' `summary[1].checks` (per check: own ms, sequential round trips) and `roundTrips`:
 *
 *   npm run bench -- --no-start --runs 3 --delay 10 --json .pooltest/bench/catalogue-20ms.json
 *   npm run bench -- --no-start --runs 3 --delay 10 --only pipeline,copy/in-out,prepared/close
 *
 * (`--delay 10` is 10 ms each way: a 20 ms round trip.) The figures of the catalogue before
 * those checks, measured on a shared 2-core machine at load 12 to 15 (wall times inflated by it;
 * the round-trip counts are not), are in bench/results/catalogue-20ms-before.json, the printed
 * table beside it (.txt): `--json bench/results/catalogue-20ms-before.json`, the first command.
 * Targets: catalogue within 3x the floor on loopback (issue 13); at most 8 s at 20 ms round
 * trip with every check as conclusive as on loopback (issue 23).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startStack } from '../fixtures/stack.js';
import { condition } from './speed/conditions.js';
import { breakdown, cliRun, floorMs } from './speed/measure.js';
import { median, render, summarise, writeJson, type ConditionSamples } from './speed/summary.js';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string' },
    delay: { type: 'string' },
    json: { type: 'string' },
    'no-start': { type: 'boolean' },
    handshake: { type: 'boolean' },
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (flags.help) {
  process.stdout.write(
    'Usage: node dist/bench/catalogue-bench.js [--runs N] [--delay MS] [--json FILE] [--no-start] [--handshake] [--only IDS]\n' +
      '  --runs N     rounds per network condition (default 5, or BENCH_RUNS)\n' +
      '  --delay MS   added each way behind the delaying proxies (default 10; a list such as 10,40\n' +
      '               measures each; 0 skips the latency condition)\n' +
      '  --json FILE  every sample (default .pooltest/bench/catalogue-<time>.json)\n' +
      '  --no-start   skip timing the fixture start\n' +
      "  --handshake  each new connection's TCP handshake takes a round trip too, as on a real path\n" +
      '               (without it the proxies accept on loopback: every login a round trip cheaper)\n' +
      "  --only IDS   only these checks (ids or areas, comma-separated, as pooltest's --only)\n",
  );
  process.exit(0);
}
const RUNS = Number(flags.runs ?? process.env.BENCH_RUNS ?? 5);
/** Delays each way, one latency condition per value (`--delay 10,40`: 20 and 80 ms round trips). */
const DELAYS_MS = (flags.delay ?? '10')
  .split(',')
  .map(Number)
  .filter((d) => d > 0);
/** Check ids or areas, as pooltest's `--only`: the whole catalogue when empty. */
const ONLY = (flags.only ?? '')
  .split(',')
  .map((n) => n.trim())
  .filter(Boolean);
const JSON_PATH =
  flags.json ?? path.join('.pooltest', 'bench', `catalogue-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);

async function timeStart(): Promise<number> {
  const t = performance.now();
  const stack = await startStack('pgbouncer-transaction');
  const ms = performance.now() - t;
  await stack.stop();
  return ms;
}

async function fixtureStart(): Promise<{ coldMs: number; warmMs: number[] }> {
  // A cold start: a temp folder of our own means no cached cluster template.
  const coldTmp = mkdtempSync(path.join(os.tmpdir(), 'pooltest-bench-'));
  chmodSync(coldTmp, 0o755); // the unprivileged server user must be able to enter it
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = coldTmp;
  const coldMs = await timeStart();
  process.env.TMPDIR = savedTmp;
  if (savedTmp === undefined) delete process.env.TMPDIR;
  rmSync(coldTmp, { recursive: true, force: true });
  await timeStart(); // make sure the regular template cache is warm
  const warmMs: number[] = [];
  for (let i = 0; i < 3; i++) warmMs.push(await timeStart());
  process.stdout.write(
    `fixture start (PostgreSQL + PgBouncer): cold ${(coldMs / 1000).toFixed(2)} s, warm median ${(median(warmMs) / 1000).toFixed(2)} s (target < 4 s)\n\n`,
  );
  return { coldMs, warmMs };
}

async function measure(delayMs: number, stack: Awaited<ReturnType<typeof startStack>>): Promise<ConditionSamples> {
  const c = await condition(stack, delayMs, undefined, flags.handshake === true);
  const samples: ConditionSamples = {
    name: c.name,
    delayMs,
    floorMs: [],
    cliMs: [],
    cliConclusive: [],
    cliOutcomes: [],
    cliRoundTrips: [],
    breakdowns: [],
  };
  try {
    for (let i = 0; i < RUNS; i++) {
      samples.floorMs.push(await floorMs(c.target));
      const cli = await cliRun(c.target, c.direct, c, ONLY);
      samples.cliMs.push(cli.ms);
      samples.cliRoundTrips.push(cli.roundTrips);
      samples.cliConclusive.push(cli.report.checks.filter((k) => k.outcome !== null).length);
      samples.cliOutcomes.push(Object.fromEntries(cli.report.checks.map((k) => [k.id, k.outcome ?? k.verdict])));
      samples.breakdowns.push(await breakdown(c.target, c.direct, c, ONLY));
      process.stderr.write(
        `${c.name}: round ${i + 1}/${RUNS}: floor ${(samples.floorMs.at(-1)! / 1000).toFixed(2)} s, catalogue ${(cli.ms / 1000).toFixed(2)} s` +
          (delayMs > 0 ? `, ${cli.roundTrips.toFixed(0)} sequential round trips` : '') +
          '\n',
      );
    }
  } finally {
    await c.stop();
  }
  return samples;
}

async function main(): Promise<void> {
  const start = flags['no-start'] ? null : await fixtureStart();
  const stack = await startStack('pgbouncer-transaction');
  const conditions: ConditionSamples[] = [];
  try {
    conditions.push(await measure(0, stack));
    for (const d of DELAYS_MS) conditions.push(await measure(d, stack));
  } finally {
    await stack.stop();
  }
  const sums = conditions.map(summarise);
  process.stdout.write(render(sums));
  const file = writeJson(JSON_PATH, {
    when: new Date().toISOString(),
    runs: RUNS,
    only: ONLY,
    cpus: os.cpus().length,
    loadavg: os.loadavg(),
    node: process.version,
    fixtureStart: start,
    summary: sums,
    samples: conditions,
  });
  process.stdout.write(
    `\nall figures: ${file} (runs: ${RUNS}; load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})\n`,
  );
}

await main();
