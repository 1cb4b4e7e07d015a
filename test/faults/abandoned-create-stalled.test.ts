/**
 * transactions/abandoned (and session/search-path-leak, its schema) drops its table even when its CREATE went unanswered and was still
 * running on the server: it is ended before the drop, instead of committing after it. The
 * stall is the server's own: an event trigger (made by the superuser) sleeps at the start of
 * that CREATE TABLE for longer than the step bound, so the check's setup is recorded
 * unanswered while the statement goes on. Without the fix the check's drop found nothing (the
 * table was not committed yet), and the table appeared a moment later, for the sweep.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { executeCheck } from '../../engine/execute/execute.js';
import { closeKeptSessions } from '../../engine/steering/kept-session.js';
import { closeSpares } from '../../engine/steering/spare-session.js';
import { abandoned } from '../../suites/transactions/abandoned.check.js';
import { searchPathLeak } from '../../suites/session/search-path-leak.check.js';
import { superuserView, withSuperuser } from '../safety/trace-inspection.js';
import { startProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';

const STALL_S = 3;
let stack: ProxiedPostgres | undefined;

beforeAll(async () => {
  stack = await startProxiedPostgres('ab5e1a11', { connectMs: 5_000, stepMs: 1_000 });
  await withSuperuser(stack.pg, async (c) => {
    await c.query(`CREATE FUNCTION stall_create() RETURNS event_trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF tg_tag IN ('CREATE TABLE', 'CREATE SCHEMA') AND current_query() LIKE '%CREATE % pooltest\\_ab5e1a11%' THEN
          PERFORM pg_sleep(${STALL_S});
        END IF;
      END $$`);
    await c.query('CREATE EVENT TRIGGER stall_create ON ddl_command_start EXECUTE FUNCTION stall_create()');
  });
});
afterAll(async () => {
  if (stack) {
    await Promise.all([closeSpares(stack.ctx.state), closeKeptSessions('all', stack.ctx.state)]);
    await withSuperuser(stack.pg, async (c) => {
      await c.query('DROP EVENT TRIGGER IF EXISTS stall_create');
      await c.query('DROP FUNCTION IF EXISTS stall_create()');
    }).catch(() => undefined);
  }
  await stack?.stop();
});

test('the CREATE is still running when its answer is given up on: it is ended, and no table of the check is left', async () => {
  const { ctx, pg } = stack!;
  const result = await executeCheck(abandoned, ctx, null);
  const setup = result.steps.find((s) => s.tag === 'A.setup');
  // The stall really outlasted the step bound (otherwise this proves nothing).
  expect(setup?.error?.message, JSON.stringify(result.steps.map((s) => s.tag))).toMatch(/no answer within/);
  expect(result.outcome).toBeNull();
  // Past the moment the stalled CREATE would have committed.
  await new Promise((r) => setTimeout(r, STALL_S * 1000 + 500));
  expect(await superuserView(pg)).toMatchObject({ tables: [] });
}, 60_000);

test('the same for session/search-path-leak: its CREATE SCHEMA is ended, and no schema or table of it is left', async () => {
  const { ctx, pg } = stack!;
  const result = await executeCheck(searchPathLeak, ctx, null);
  const setup = result.steps.find((s) => s.tag === 'setup.schema');
  expect(setup?.error?.message, JSON.stringify(result.steps.map((s) => s.tag))).toMatch(/no answer within/);
  // Past the moment the stalled CREATE SCHEMA (and the CREATE TABLE after it) would have committed.
  await new Promise((r) => setTimeout(r, 2 * STALL_S * 1000 + 500));
  expect(await superuserView(pg)).toMatchObject({ schemas: [], tables: [] });
}, 60_000);
