/**
 * Leave no trace, including the name. pooltest's sessions send `pooltest-<run>` as their
 * startup application_name; PgBouncer applies it to each server connection they use with a
 * SET, and applies nothing for a client that sends no name (node-postgres by default), which
 * is then shown the name the server connection had last. After a run, no such client may see
 * pooltest's name, and the report says the sweep reset it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { runCli, type CliRun } from '../support/cli.js';
import { namesSeenByNamelessClients } from './trace-inspection.js';

describe('application_name after a run on PgBouncer transaction pooling', () => {
  let stack: Stack;
  let run: CliRun;
  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
    run = await runCli(
      [
        '--target',
        stack.target.url(),
        '--direct',
        stack.postgres.url(),
        '--only',
        'session/set-leak,session/tracked-parameter,temp',
      ],
      { json: true },
    );
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('control: a client that sends no name is shown the name the last client on that server connection sent', async () => {
    const named = new pg.Client({ connectionString: stack.target.url(), application_name: 'pooltest-control' });
    named.on('error', () => undefined);
    await named.connect();
    await named.query('SELECT 1');
    await named.end();
    // One nameless client alone gets the server connection just released (PgBouncer: LIFO).
    const [view] = await namesSeenByNamelessClients(stack.target.url(), 1);
    expect(view?.app).toBe('pooltest-control');
    // Put it back the way this test found it.
    const c = new pg.Client({ connectionString: stack.target.url() });
    await c.connect();
    await c.query('RESET application_name');
    await c.end();
  });

  test('a later client that sent no application_name is not shown pooltest-<run> on any server connection', async () => {
    expect(run.code, run.stderr).toBe(0);
    const views = await namesSeenByNamelessClients(stack.target.url(), stack.pooler!.poolSize);
    expect(new Set(views.map((v) => v.pid)).size).toBe(stack.pooler!.poolSize);
    expect(views.filter((v) => v.app.startsWith('pooltest'))).toEqual([]);
  });

  test('the sweep says it reset the name on the server connections and stays clean', () => {
    const sweep = run.report?.sweep;
    expect(sweep?.state, `${sweep?.leftovers.join('; ')} ${sweep?.reason ?? ''}`).toBe('clean');
    expect(sweep?.restored?.length ?? 0).toBeGreaterThanOrEqual(1);
    for (const r of sweep?.restored ?? [])
      expect(r).toMatch(new RegExp(`application_name pooltest-${run.report!.runId} reset`));
    expect(run.stdout).toMatch(/application_name reset on \d server connection/);
  });
});
