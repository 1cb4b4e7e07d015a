/**
 * A drivers run through a target that stops answering for good goes through the phases a check
 * run uses (engine/execute/run-phases.ts): the configuration that found the target unavailable waits
 * once, bounded, for it to answer again; the configurations after it are not run, and each of
 * their scenarios is inconclusive with the reason a check gives ("not run: the target stopped
 * answering during ..."), in bounded time. Control: the same drivers without the fault conclude
 * every scenario, and none says the target went away.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DRIVERS, type DriverSpec } from '../../drivers/catalogue.js';
import { runDrivers } from '../../drivers/run-drivers.js';
import { resolveTarget } from '../../engine/target/target.js';
import { startProxiedBouncer, type ProxiedBouncer } from '../faults/proxied-bouncer.js';

const GONE = /^not run: the target stopped answering during node-postgres in configuration named and did not answer/;

/** node-postgres (two configurations) then postgres.js: JavaScript agents, no runtime to install. */
function drivers(): DriverSpec[] {
  return ['node-postgres', 'postgres.js'].map((id) => {
    const d = DRIVERS.find((x) => x.id === id);
    if (!d) throw new Error(`no driver ${id}`);
    return d;
  });
}

describe('a drivers run through a target that stops answering', () => {
  let stack: ProxiedBouncer;

  beforeAll(async () => {
    stack = await startProxiedBouncer();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const target = (): ReturnType<typeof resolveTarget> => resolveTarget({ target: stack.url() });

  test('control: without the fault every scenario concludes, none says the target went away', async () => {
    const r = await runDrivers(target(), { drivers: drivers(), direct: resolveTarget({ target: stack.pg.url() }) });
    expect(r.skipped).toEqual([]);
    expect(r.results.filter((x) => x.outcome === null).map((x) => `${x.id}: ${x.reason}`)).toEqual([]);
    expect(r.results.filter((x) => GONE.test(x.reason))).toEqual([]);
  }, 120_000);

  test('frozen after the first configuration: one bounded wait, then every later scenario not run with why', async () => {
    let frozen = false;
    const t0 = performance.now();
    const r = await runDrivers(target(), {
      drivers: drivers(),
      direct: resolveTarget({ target: stack.pg.url() }),
      stepMs: 2_000,
      onResult(result) {
        // Once node-postgres' first configuration is judged, nothing through the target moves.
        if (!frozen && result.id.endsWith('@unnamed')) {
          frozen = true;
          stack.proxy.stall(120_000);
        }
      },
    });
    stack.proxy.resume();
    const ms = performance.now() - t0;
    const by = (config: string): string[] =>
      r.results.filter((x) => x.config === config).map((x) => `${x.id}: ${x.outcome ?? x.reason}`);
    expect(r.results.filter((x) => x.config === 'unnamed').every((x) => x.outcome !== null)).toBe(true);
    // The configuration that met the silence: inconclusive, its own reason (not "not run").
    const met = r.results.filter((x) => x.config === 'named');
    expect(met.length).toBeGreaterThan(0);
    expect(met.filter((x) => x.outcome !== null || GONE.test(x.reason))).toEqual([]);
    // Everything after it: not run, no record, the reason a check would give.
    const after = r.results.filter((x) => x.driver === 'postgres.js');
    expect(after.length, by('default').join('\n')).toBeGreaterThan(0);
    for (const x of after) {
      expect(x.reason, x.id).toMatch(GONE);
      expect([x.outcome, x.verdict, x.record]).toEqual([null, 'inconclusive', null]);
    }
    // Bounded: one wait for the target, not a step bound per later scenario.
    expect(ms).toBeLessThan(60_000);
  }, 120_000);
});
