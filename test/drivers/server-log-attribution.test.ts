/**
 * Which driver step a server-logged error belongs to (server-log.ts), when two uses of a driver
 * follow each other on one backend within the log's slack. Seen on PgBouncer 1.25.2: Django's
 * iterator FETCH failed ("cursor _django_curs_... does not exist") 35 ms after B's queries had
 * ended on that backend, and B's clean run was read as `retried`.
 */
import { expect, test } from 'vitest';
import { attachServerErrors, SERVER_LOG } from '../../drivers/server-log.js';
import { DRIVER_TAGS } from '../../drivers/tags.js';
import type { StepRecord } from '../../engine/types.js';

const step = (tag: string, pid: number | null, startMs: number, durationMs: number, error = false): StepRecord => ({
  seq: 0,
  session: tag.includes('B.') ? 'B' : 'A',
  tag,
  sql: '',
  pid,
  results: [pid === null ? [] : [{ pid, answer: 42 }]],
  error: error ? { message: 'InvalidCursorName: cursor does not exist', code: '34000' } : null,
  notices: [],
  notifications: [],
  startMs,
  durationMs,
  timedOut: false,
  txStatus: null,
});

const logged = (steps: StepRecord[], atMs: number) => {
  attachServerErrors(steps, [{ atMs, pid: 7, message: 'cursor "c" does not exist' }], 0);
  return steps.filter((s) => s.notices.some((n) => n.severity === SERVER_LOG)).map((s) => s.tag);
};

test("an error logged after the next driver use began is not the previous step's, even within the slack", () => {
  const run = () => [
    step(DRIVER_TAGS.collision.create, 7, 100, 50),
    step(DRIVER_TAGS.cursor.readback, null, 185, 2, true),
  ];
  expect(logged(run(), 186)).toEqual([]);
  // Controls: the same error before the next use began is B's, and with no next use the slack holds.
  expect(logged(run(), 170)).toEqual([DRIVER_TAGS.collision.create]);
  expect(logged([step(DRIVER_TAGS.collision.create, 7, 100, 50)], 186)).toEqual([DRIVER_TAGS.collision.create]);
});

test("an error logged once the agent logged out is not its last use's (ActiveRecord's DEALLOCATE at disconnect)", () => {
  const run = () => [step(DRIVER_TAGS.collision.create, 7, 100, 50), step(DRIVER_TAGS.collision.close, null, 151, 4)];
  expect(logged(run(), 152)).toEqual([]);
  // Control: before the logout began, the error is the use's.
  expect(logged(run(), 149)).toEqual([DRIVER_TAGS.collision.create]);
});
