/**
 * How many other pooltest runs a check says worked on its target. A run shows itself two ways
 * (its presence lock, and its name on the backends it uses); one run showing both is one run.
 * It was counted twice: two pooltest runs at once each reported "2 other pooltest run(s)".
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { announceRun, otherRunsActive } from '../../engine/steering/other-runs.js';
import { closeKeptSessions } from '../../engine/steering/kept-session.js';
import { Recorder } from '../../engine/session/recorder.js';
import { applicationNameFor, Session } from '../../engine/session/session.js';
import { startProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';

let stack: ProxiedPostgres | undefined;

beforeAll(async () => {
  stack = await startProxiedPostgres('0a0a0a0a');
});
afterAll(async () => {
  if (stack) await closeKeptSessions('all', stack.ctx.state);
  await stack?.stop();
});

/** Another run's session that has just run a statement: its name is on a backend that moved. */
async function workingAs(runId: string): Promise<Session> {
  const { ctx } = stack!;
  const s = await Session.open('other', ctx.target, new Recorder(), {
    ...ctx.bounds,
    applicationName: applicationNameFor(runId),
  });
  const step = await s.run('other.work', 'SELECT 1');
  expect(step.error).toBeNull();
  return s;
}

test('another run seen by its presence lock and by its working session counts once; a second run makes two', async () => {
  const { ctx } = stack!;
  expect(await otherRunsActive(ctx, 10_000)).toBe(0);
  // The announced runs log in with their own names (announceRun uses the context's run id).
  const leaveB = await announceRun({ ...ctx, runId: 'bbbbbbbb' });
  const b = await workingAs('bbbbbbbb');
  try {
    expect(await otherRunsActive(ctx, 10_000)).toBe(1);
    const leaveC = await announceRun({ ...ctx, runId: 'cccccccc' });
    try {
      // Control: a run that only announced itself still counts.
      expect(await otherRunsActive(ctx, 10_000)).toBe(2);
    } finally {
      await leaveC();
    }
  } finally {
    await b.close();
    await leaveB();
  }
  // Both gone, and b's statement outside a window of 0: nobody. A closed session's backend
  // leaves pg_stat_activity (and drops its lock) when it has finished exiting, a moment after
  // the client's Terminate: on a busy machine the first look can still see it (CI did).
  expect(await settlesTo(() => otherRunsActive(ctx, 0), 0, 5_000)).toBe(0);
});

/** The last value `read` gave, polled until it is `want` or `withinMs` has passed. */
async function settlesTo<T>(read: () => Promise<T>, want: T, withinMs: number): Promise<T> {
  const until = performance.now() + withinMs;
  let seen = await read();
  while (seen !== want && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    seen = await read();
  }
  return seen;
}
