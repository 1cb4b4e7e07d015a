/**
 * `pooltest drivers` arguments, without a server: the list, and bad input refused with a coded
 * error before anything starts (exit 2). The runs themselves are in agents.test.ts.
 */
import { expect, test } from 'vitest';
import { DRIVERS } from '../../drivers/catalogue.js';
import { runCli } from '../support/cli.js';

test('--list shows every driver with its configurations', async () => {
  const r = await runCli(['drivers', '--list']);
  expect(r.code).toBe(0);
  for (const d of DRIVERS) expect(r.stdout).toContain(d.id);
  expect(r.stdout).toContain('statement_cache_size=0 (advised)');
  // Each driver's batch call, and node-postgres' lack of one, are said.
  expect(r.stdout).toContain('batch: addBatch() per row, then executeBatch()');
  expect(r.stdout).toContain('batch: none (no batch or pipeline API)');
});

test.each([
  [['drivers', '--driver', 'nope', '--target', '127.0.0.1:1'], /BAD_ARGUMENTS: unknown driver nope/],
  [['drivers', '--stack', 'nope'], /BAD_ARGUMENTS: unknown stack "nope"/],
  [
    ['drivers', '--scenario', 'batch,pipeline', '--target', '127.0.0.1:1'],
    /BAD_ARGUMENTS: unknown scenario pipeline; known: moved, collision, cursor, batch/,
  ],
  [['drivers', '--stack', 'direct', '--target', '127.0.0.1:1'], /BAD_ARGUMENTS: --stack and --target/],
  [
    ['drivers', '--target', '127.0.0.1:1', '--server-log', '/nonexistent/postgres.log'],
    /BAD_ARGUMENTS: --server-log: the server log \/nonexistent\/postgres.log cannot be read/,
  ],
])('%j is refused with BAD_ARGUMENTS', async (args, message) => {
  const r = await runCli(args, { env: { ...process.env, PGHOST: '', PGPORT: '' } });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(message);
});

test('an unreachable target is a coded error, not a hang', async () => {
  const r = await runCli(['drivers', '--target', '127.0.0.1:1', '--driver', 'psycopg2', '--timeout', '2000ms']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/pooltest: [A-Z_]+: /);
});
