/**
 * A retry seen from the server's side, against real parts: postgres.js with its defaults
 * through PgBouncer 1.18 transaction mode. Its statement, prepared on one backend, is sent on
 * another; PostgreSQL logs 26000 there, postgres.js prepares again and the application sees a
 * success. `pooltest drivers --stack` reads the fixture's server log, so the step that moved
 * carries the server's error on the backend it ran on (a `server-log` notice), and the result
 * is `retried`. Control: with `prepare: false` no error is logged and nothing is attached. The
 * same run writes the HTML report, with a diagram per scenario.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { DriversReport } from '../../drivers/run-drivers.js';
import { runCli } from '../support/cli.js';

test('postgres.js through PgBouncer 1.18: the server log shows the error its retry hid', async (ctx) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-drivers-log-'));
  try {
    const json = path.join(dir, 'drivers.json');
    const html = path.join(dir, 'drivers.html');
    const run = await runCli(
      ['drivers', '--stack', 'pgbouncer-transaction', '--driver', 'postgres.js', '--json', json, '--html', html],
      { timeoutMs: 150_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as DriversReport;
    const result = (id: string) => report.results.find((r) => r.id === id)!;
    const logged = (config: string) => {
      const rec = report.records.find((r) => r.config === config)!;
      const step = rec.steps.find((s) => s.tag === 'moved:A.readback')!;
      return step.notices.filter((n) => n.severity === 'server-log').map((n) => n.message);
    };
    const moved = result('postgres.js/moved@default');
    // A label needs the landing proven. Inconclusive (a busy machine) proves nothing either
    // way: the test is skipped with the reason, never passed.
    if (moved.outcome === null) ctx.skip(`moved@default inconclusive: ${moved.reason}`);
    expect(moved.outcome, moved.reason).toBe('retried');
    expect(moved.facts.serverLogRead).toBe(true);
    expect(logged('default').join('\n')).toMatch(/prepared statement "\w+" does not exist \(server log, backend \d+\)/);
    expect(logged('prepare=false')).toEqual([]);
    expect(result('postgres.js/moved@prepare=false').outcome).toBe('works');
    const page = readFileSync(html, 'utf8');
    expect(page.match(/<svg class="seq"/g)?.length).toBe(report.results.length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
