/**
 * Controls for copy/in-out and prepared/close: the fault proxy in front of a real PostgreSQL
 * plays a pooler that loses one protocol message, and the check must give its breaking outcome;
 * through the same proxy without the fault, the good one.
 *
 * - copy/in-out: the proxy drops the late CopyDone (the only one sent after a pause), so the
 *   server stays in COPY and A's answer never comes: `stalled`, with the step and the wait.
 * - prepared/close: the proxy drops the Close, so the statement stays on A's backend and the
 *   re-Parse of its name there fails with 42P05: `refused`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { executeCheck } from '../../engine/execute/execute.js';
import { closeKeptSessions } from '../../engine/steering/kept-session.js';
import { closeSpares } from '../../engine/steering/spare-session.js';
import { inOut } from '../../suites/copy/in-out.check.js';
import { close } from '../../suites/prepared/close.check.js';
import { startProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';

let env: ProxiedPostgres | undefined;
/** A step bound short enough for a stalled step to end the test soon, long enough for a loaded machine. */
const bounds = { connectMs: 5_000, stepMs: 3_000 };

beforeAll(async () => {
  env = await startProxiedPostgres('c0f7c105', bounds);
}, 120_000);

afterAll(async () => {
  if (env) await Promise.all([closeSpares(env.ctx.state), closeKeptSessions('all', env.ctx.state)]);
  await env?.stop();
});

describe('copy/in-out against PostgreSQL through the fault proxy', () => {
  test('without a fault: works', async () => {
    const r = await executeCheck(inOut, env!.ctx, null);
    expect(r.outcome, r.reason).toBe('works');
    expect(r.facts).toMatchObject({ landedInTransaction: 3, landedLate: 2, copiedOut: '1\n2\n3\n' });
  }, 60_000);

  test('the late CopyDone lost on the way: stalled, naming the step and the wait', async () => {
    const before = env!.proxy.droppedMessages();
    env!.proxy.dropNextMessage('toServer', 'c');
    const r = await executeCheck(inOut, env!.ctx, null);
    expect(env!.proxy.droppedMessages()).toBe(before + 1);
    expect(r.outcome, r.reason).toBe('stalled');
    // The first CopyDone of the run is the one inside BEGIN (tx.copy-done).
    expect(r.reason).toMatch(/copy-done .*no answer within \d+ ms/);
  }, 60_000);
});

describe('prepared/close against PostgreSQL through the fault proxy', () => {
  test('without a fault: honoured', async () => {
    const r = await executeCheck(close, env!.ctx, null);
    expect(r.outcome, r.reason).toBe('honoured');
  }, 60_000);

  test('the Close lost on the way: the re-Parse collides with the statement (42P05), refused', async () => {
    const before = env!.proxy.droppedMessages();
    env!.proxy.dropNextMessage('toServer', 'C');
    const r = await executeCheck(close, env!.ctx, null);
    expect(env!.proxy.droppedMessages()).toBe(before + 1);
    expect(r.outcome, r.reason).toBe('refused');
    expect(r.reason).toMatch(/42P05/);
  }, 60_000);
});
