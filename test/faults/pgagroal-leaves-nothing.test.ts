/**
 * Nothing of a run stays on a real pgagroal 1.6.0 (issue 40): its transaction pipeline once kept
 * both server connections idle in pooltest's holder transactions after their clients left, and
 * answered nobody; its session pipeline kept the run's startup application_name on its server
 * connections (RESET restores it), so every sweep was dirty and exited 1.
 *
 * Now, against the fixtures with --direct: three runs in a row on the transaction pipeline each
 * end with a clean sweep (what it had to end is said in `sweep.ended`), exit 0, no backend of
 * any run left idle in a transaction or carrying a run's name, and a new client answered within
 * a second; the session pipeline's run ends the same. Red before: every run's sweep said
 * `application_name = pooltest-<run> even after RESET (the pooler passes it at startup)`, exit 1.
 *
 * The transaction pipeline's runs leave out the wire checks' areas (pipeline, copy): after a
 * client leaves with a pipeline pgagroal 1.6.0 has not answered, its worker keeps spinning and
 * keeps its slot even once the backend is ended (a pgagroal defect, said in the matrix's notes
 * on that column); no client can undo that, so those runs end with the pool full.
 */
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { CATALOGUE } from '../../suites/catalogue.js';
import { poolerBuildUnavailable } from '../../fixtures/pooler-build.js';
import type { Stack } from '../../fixtures/stack.js';
import { sharedPostgres } from '../support/shared-postgres.js';
import { runCli } from '../support/cli.js';

const UNAVAILABLE = await poolerBuildUnavailable('pgagroal');
const SKIP = UNAVAILABLE ? ` (skipped: ${UNAVAILABLE})` : '';

// One PostgreSQL for the whole file, each describe block's pgagroal in front of it in turn.
const { postgres, useStack } = sharedPostgres(UNAVAILABLE === null);

/** Client backends on the server that a run left: in a transaction, or carrying a run's name. */
async function leftOnServer(): Promise<string[]> {
  const c = new pg.Client(postgres().url());
  c.on('error', () => undefined);
  await c.connect();
  try {
    const r = await c.query<{ line: string }>(
      `SELECT pid || ' ' || state || ' ' || application_name AS line FROM pg_stat_activity
       WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
         AND (state LIKE 'idle in transaction%' OR application_name LIKE 'pooltest%')`,
    );
    return r.rows.map((row) => row.line);
  } finally {
    await c.end();
  }
}

/** How long a new client through the pooler takes to log in and answer SELECT 1, in ms. */
async function newClientMs(stack: Stack): Promise<number> {
  const started = performance.now();
  const c = new pg.Client({ ...stack.target, connectionTimeoutMillis: 5_000 });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.query('SELECT 1');
    return Math.round(performance.now() - started);
  } finally {
    await Promise.race([c.end().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000))]);
  }
}

/** Every area but the wire checks' that wedge pgagroal 1.6.0's transaction pipeline (see above). */
const WITHOUT_WIRE_AREAS = [...new Set(CATALOGUE.map((c) => c.id.split('/')[0]!))]
  .filter((area) => area !== 'pipeline' && area !== 'copy')
  .join(',');

async function runOnce(stack: Stack, extra: string[] = []) {
  const run = await runCli(
    ['--target', stack.target.url(), '--direct', postgres().url(), '--timeout', '5s', ...extra],
    {
      json: true,
      timeoutMs: 240_000,
    },
  );
  const report = run.report!;
  const line = run.stdout.split('\n').find((l) => l.startsWith('Sweep:')) ?? '(no sweep line)';
  return { run, report, line };
}

describe.skipIf(UNAVAILABLE !== null)(`pgagroal 1.6.0, transaction pipeline, three runs in a row${SKIP}`, () => {
  const stack = useStack('pgagroal-transaction');

  test('each run ends with a clean sweep, exit 0, nothing of it on the server, and the pooler answers a new client within a second', async () => {
    for (let i = 1; i <= 3; i++) {
      const { run, report, line } = await runOnce(stack(), ['--only', WITHOUT_WIRE_AREAS]);
      const ms = await newClientMs(stack());
      console.log(`run ${i}: exit ${run.code} in ${run.ms} ms; ${line}; new client answered in ${ms} ms`);
      expect(report.sweep?.state, `${line}\n${run.stderr}`).toBe('clean');
      expect(run.code, `${line}\n${run.stderr}`).toBe(0);
      expect(await leftOnServer()).toEqual([]);
      expect(ms).toBeLessThan(1_000);
    }
  }, 780_000);
});

describe.skipIf(UNAVAILABLE !== null)(`pgagroal 1.6.0, session pipeline${SKIP}`, () => {
  const stack = useStack('pgagroal-session');
  // The whole catalogue (about 25 s here): a server connection pgagroal opens again after a
  // check ended one takes the startup packet of the client that needed it, so only a run that
  // gets that far showed the name left (three runs of three; a few quick checks did not).
  test('the run ends with a clean sweep, exit 0, and no run name on the server connections', async () => {
    const { run, report, line } = await runOnce(stack());
    console.log(`session pipeline: exit ${run.code} in ${run.ms} ms; ${line}`);
    expect(report.sweep?.state, `${line}\n${run.stderr}`).toBe('clean');
    expect(run.code, `${line}\n${run.stderr}`).toBe(0);
    expect(await leftOnServer()).toEqual([]);
  }, 240_000);
});
