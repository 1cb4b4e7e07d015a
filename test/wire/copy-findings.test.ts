/**
 * What copy/in-out finds in the poolers the fixtures build, each run against its real pooler
 * (named after the defect it shows, so the history of what broke stays readable):
 *
 * - PgBouncer 1.25.2, transaction pooling: a COPY inside BEGIN that the server fails on a bad
 *   row, while the client's last CopyData and CopyDone arrive after the error (a client still
 *   streaming), leaves the server with that client after its ROLLBACK: no other client gets it
 *   while the server shows it idle (`pinned`; pgbouncer/pgbouncer#1471, fixed after 1.25.2).
 *   The COPY with a late CopyDone outside BEGIN releases its server (the fact `afterLate`).
 * - PgBouncer 1.18 (Debian), the control: the same traffic, and the next client gets that
 *   server idle (`works`).
 * - Odyssey 1.5.1: the late CopyData and CopyDone after the error are a protocol violation to
 *   it, and it ends the client's connection with FATAL 08P01 at its next query (`mismatched`).
 */
import { describe, expect, test } from 'vitest';
import { poolerBuildUnavailable } from '../../fixtures/pooler-build.js';
import { startStack, type StackName } from '../../fixtures/stack.js';
import { run } from '../../runner/run.js';
import type { CheckResult } from '../../engine/types.js';

async function copyCheckOn(name: StackName): Promise<CheckResult> {
  const stack = await startStack(name);
  try {
    const report = await run({ target: stack.target.url(), direct: stack.postgres.url(), only: ['copy/in-out'] });
    return report.checks[0]!;
  } finally {
    await stack.stop();
  }
}

const NO_PGBOUNCER = await poolerBuildUnavailable('pgbouncer');
const NO_ODYSSEY = await poolerBuildUnavailable('odyssey');

describe('copy/in-out on real poolers', () => {
  test.skipIf(NO_PGBOUNCER !== null)(
    'PgBouncer 1.25.2 keeps a server after a COPY error followed by late CopyData/CopyDone (pgbouncer#1471): pinned',
    async () => {
      const r = await copyCheckOn('pgbouncer-1.25-transaction');
      expect(r.outcome, r.reason).toBe('pinned');
      expect(r.facts).toMatchObject({
        afterLate: 'works',
        afterError: 'pinned',
        landedInTransaction: 3,
        landedLate: 2,
      });
    },
    120_000,
  );

  test('control: PgBouncer 1.18 releases that server, and the next client finds it idle: works', async () => {
    const r = await copyCheckOn('pgbouncer-transaction');
    expect(r.outcome, r.reason).toBe('works');
    expect(r.facts).toMatchObject({ afterLate: 'works', afterError: 'works' });
  }, 120_000);

  test.skipIf(NO_ODYSSEY !== null)(
    "Odyssey 1.5.1 ends the client's connection (FATAL 08P01) after late CopyData/CopyDone that follow a COPY error: mismatched",
    async () => {
      const r = await copyCheckOn('odyssey-transaction');
      expect(r.outcome, r.reason).toBe('mismatched');
      expect(r.reason).toMatch(/^error\.rollback: 08P01 odyssey: .*unexpected message type from client/);
    },
    120_000,
  );
});
