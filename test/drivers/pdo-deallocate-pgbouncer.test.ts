/**
 * PDO's DEALLOCATE through PgBouncer 1.25.2 (transaction mode, max_prepared_statements on),
 * against real parts. PgBouncer gives the server its own name for PDO's pdo_stmt_00000001
 * (PGBOUNCER_N), so the SQL `DEALLOCATE pdo_stmt_00000001` PDO sends when a statement object
 * goes away names nothing on the server: PostgreSQL logs 26000, PDO ignores it
 * (pgbouncer#991, php-src#12940). B sends it at its close, a moment after its runs; the server
 * log's slack once made that error B's, and the collision read `retried` although B's runs met
 * no error. Control: with emulated prepares PDO names nothing and the log holds no DEALLOCATE.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/index.js';
import { DRIVERS } from '../../drivers/catalogue.js';
import { runDrivers } from '../../drivers/run-drivers.js';
import { resolveTarget } from '../../engine/target/target.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('pgbouncer-1.25-transaction');
});
afterAll(async () => {
  await stack?.stop();
});

const pdo = DRIVERS.find((d) => d.id === 'pdo-pgsql')!;

test("PDO's DEALLOCATE at close, refused through PgBouncer 1.25.2, is not read as B's retry", async (ctx) => {
  const logFile = stack.postgres.logFile;
  const before = readFileSync(logFile, 'utf8').length;
  const r = await runDrivers(resolveTarget({ target: stack.target.url() }), {
    drivers: [{ ...pdo, configs: pdo.configs.filter((c) => c.name === 'default') }],
    serverLog: logFile,
  });
  const logged = readFileSync(logFile, 'utf8').slice(before);
  // The fact the attribution must not misread: PDO's own DEALLOCATE, refused by the server.
  expect(logged).toMatch(
    /ERROR: {2}prepared statement "pdo_stmt_00000001" does not exist\n.*STATEMENT: {2}DEALLOCATE pdo_stmt_00000001/,
  );
  const collision = r.results.find((x) => x.id === 'pdo-pgsql/collision@default')!;
  // A label needs the landing proven; inconclusive (a busy machine) proves nothing either way.
  if (collision.outcome === null) ctx.skip(`collision inconclusive: ${collision.reason}`);
  expect(collision.facts.serverLogRead).toBe(true);
  expect(`${collision.outcome}: ${collision.reason}`).toMatch(/^works: B ran 7 times on A's old backend \d+$/);
}, 180_000);

test('control: with emulated prepares PDO sends no DEALLOCATE', async () => {
  const logFile = stack.postgres.logFile;
  const before = readFileSync(logFile, 'utf8').length;
  const r = await runDrivers(resolveTarget({ target: stack.target.url() }), {
    drivers: [{ ...pdo, configs: pdo.configs.filter((c) => c.name === 'ATTR_EMULATE_PREPARES=true') }],
    serverLog: logFile,
  });
  expect(readFileSync(logFile, 'utf8').slice(before)).not.toMatch(/DEALLOCATE pdo_stmt/);
  expect(r.results.filter((x) => x.outcome !== null).length).toBeGreaterThan(0);
}, 180_000);
