/**
 * A target that stops answering for good (a frozen pooler, a network that hangs) costs one
 * check and one bounded wait, not the bounds of every later check: once the engine's wait for
 * an answer after a check fails, the checks after it are inconclusive at once with the reason,
 * and the sweep says it could not look. Control: the same run without the fault concludes
 * everything, and nothing says the target went away.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { FaultProxy } from '../../fixtures/fault-proxy.js';
import type { PoolerFixture } from '../../fixtures/pooler-fixture.js';
import type { PostgresFixture } from '../../fixtures/postgres-fixture.js';
import { startProxiedBouncer, type ProxiedBouncer } from './proxied-bouncer.js';
import { run } from '../../runner/run.js';
import { isRunFact } from '../../engine/record/run-facts.js';
import { superuserView } from '../safety/trace-inspection.js';

const CHECKS = [
  'session/set-leak',
  'session/search-path-leak',
  'temp/temp-table',
  'locks/advisory-session',
  'prepared/sql-prepare',
  'sequences/lastval',
];
const GONE = /^not run: the target stopped answering during (\S+) and did not answer again within \d+ ms/;

/**
 * The frozen run's step bound: 1 s, or a third of the control's discovery when the machine is
 * slow (at most 4 s), so that its own discovery gets through to the first check under load.
 */
const frozenBound = (discoveryMs: number): number =>
  Math.min(4_000, Math.max(1_000, Math.ceil(discoveryMs / 3 / 100) * 100));

describe('a target that stops answering for good', () => {
  let stack: ProxiedBouncer;
  let pgFixture: PostgresFixture;
  let bouncer: PoolerFixture;
  let proxy: FaultProxy;
  const proxied = (): string => stack.url();
  let controlDiscoveryMs = 0;

  beforeAll(async () => {
    stack = await startProxiedBouncer();
    ({ pg: pgFixture, bouncer, proxy } = stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('control: without the fault every check concludes and none says the target went away', async () => {
    // The default step bound: at load 27 a 1 s one let the --direct login time out (issue 21).
    // Whether the target is taken for gone does not depend on the bound.
    const report = await run({
      target: proxied(),
      direct: pgFixture.url(),
      only: CHECKS,
      onPhase: (phase, ms) => {
        if (phase === 'discovery') controlDiscoveryMs = ms;
      },
    });
    expect(report.checks.map((c) => `${c.id}: ${c.outcome ?? c.reason}`).filter((l) => GONE.test(l))).toEqual([]);
    expect(report.checks.filter((c) => c.outcome === null).map((c) => `${c.id}: ${c.reason}`)).toEqual([]);
    expect(report.sweep?.state).toBe('clean');
  }, 60_000);

  test('frozen from the first check on: that check is inconclusive, the later ones are not run, the sweep is unknown', async () => {
    let first: string | null = null;
    const report = await run({
      target: proxied(),
      direct: pgFixture.url(),
      only: CHECKS,
      timeoutMs: frozenBound(controlDiscoveryMs),
      onCheckStart(file) {
        if (first !== null) return;
        first = file;
        // Longer than the whole run: nothing through the target moves until resume().
        proxy.stall(120_000);
      },
    });
    proxy.resume();
    expect(first).not.toBeNull();
    // A check that did not run carries the engine's fact of that (engine/record/run-facts.ts), no step of its own.
    const ran = report.checks.filter((c) => c.steps.some((s) => !isRunFact(s)));
    const skipped = report.checks.filter((c) => GONE.test(c.reason ?? ''));
    // One check met the silence and waited for it to end; every later one says why it did not run.
    expect(ran.map((c) => c.id)).toHaveLength(1);
    expect(ran[0]!.outcome, ran[0]!.reason ?? '').toBeNull();
    expect(ran[0]!.facts['targetGone']).toBe(true);
    expect(skipped.map((c) => c.id).sort()).toEqual(CHECKS.filter((id) => id !== ran[0]!.id).sort());
    for (const c of skipped) {
      expect(c.verdict).toBe('inconclusive');
      expect(GONE.exec(c.reason ?? '')?.[1]).toBe(ran[0]!.id);
      expect(c.durationMs).toBe(0);
    }
    // The sweep could not look through the target: unknown, never clean.
    expect(report.sweep?.state).toBe('unknown');
    // Nothing of the run stays on the server once the network moves again (the pooler closes
    // what its clients left: polled, bounded).
    let view = await superuserView(pgFixture);
    for (const until = Date.now() + 5_000; Date.now() < until;) {
      if (view.idleInTransaction === 0 && view.advisoryLocks === 0 && view.tempTables.length === 0) break;
      await new Promise((r) => setTimeout(r, 200));
      view = await superuserView(pgFixture);
    }
    expect({ idle: view.idleInTransaction, locks: view.advisoryLocks, temp: view.tempTables }).toEqual({
      idle: 0,
      locks: 0,
      temp: [],
    });
  }, 90_000);
});
