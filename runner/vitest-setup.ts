/**
 * Vitest `globalSetup` for running pooltest's check suites inside a vendor's own Vitest run
 * (`pooltest/vitest/setup`; `pooltestProject()` wires it in). It does what `run()` does before
 * and after the checks: resolve the target, discover it once, provide the run context to the
 * test workers, and, on teardown, sweep for leftovers. A dirty sweep fails the run, as it does
 * for the CLI (exit 1). Settings come from `pooltestProject(options)`, else from the environment:
 *
 * | variable | meaning |
 * |---|---|
 * | `POOLTEST_TARGET` | the pooler: `host:port` or a postgres:// URL (PG* variables fill the gaps) |
 * | `POOLTEST_DIRECT` | the PostgreSQL behind it (baseline and sweep) |
 * | `POOLTEST_PROFILE` / `POOLTEST_EXPECT` | a built-in profile / an expectations file to assert |
 * | `POOLTEST_TIMEOUT`, `POOLTEST_MAX_POOL` | as `--timeout` and `--max-pool` |
 * | `POOLTEST_STRICT` | `1` or `true`: as `--strict` (an inconclusive check fails its test; a sweep that could not finish fails the run) |
 * | `POOLTEST_FAIL_ON_BREAKS` | `1` or `true`: as `--fail-on-breaks` (a check whose outcome breaks transaction-pooled clients fails its test, expected or not) |
 */
import type { TestProject } from 'vitest/node';
import { parseDuration } from '../engine/record/time.js';
import { discover } from '../engine/discovery/discovery.js';
import { PooltestError } from '../engine/record/errors.js';
import { loadExpectations } from './expectations.js';
import { newRunId } from '../engine/record/markers.js';
import { findProfile } from '../profiles/index.js';
import { DEFAULT_MAX_POOL, DEFAULT_TIMEOUT_MS, type RunOptions } from './run.js';
import { runContext, runData, RunState } from '../engine/context/run-state.js';
import { closeKeptSessions } from '../engine/steering/kept-session.js';
import { closeSpares } from '../engine/steering/spare-session.js';
import { sweep } from '../engine/sweep/sweep.js';
import { sweepUnfinished } from '../engine/record/verdict.js';
import { describeTarget, resolveRelated, resolveTarget } from '../engine/target/target.js';
import type { PooltestProvided } from './vitest-check.js';
import { CATALOGUE } from '../suites/catalogue.js';

/**
 * What to test and assert; every field falls back to its `POOLTEST_*` variable (PG* for the
 * login). Fields mean what they mean for `run()`, except that the profile is named here.
 */
export type PooltestSetupOptions = Pick<
  RunOptions,
  'user' | 'password' | 'database' | 'direct' | 'timeoutMs' | 'maxPool' | 'strict' | 'failOnBreaks'
> & {
  /** `host:port` or a postgres:// URL. */
  target?: string;
  /** A built-in profile name (see `pooltest --list-profiles`). */
  profile?: string;
  /** Path of an expectations file (see `pooltest --expect`). */
  expect?: string;
};

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by `pooltestProject()`; read by the global setup. */
    pooltestSetup?: PooltestSetupOptions;
  }
}

/** The options the environment gives. */
export function setupOptionsFromEnv(env: NodeJS.ProcessEnv): PooltestSetupOptions {
  const o: PooltestSetupOptions = {};
  if (env.POOLTEST_TARGET) o.target = env.POOLTEST_TARGET;
  if (env.POOLTEST_DIRECT) o.direct = env.POOLTEST_DIRECT;
  if (env.POOLTEST_PROFILE) o.profile = env.POOLTEST_PROFILE;
  if (env.POOLTEST_EXPECT) o.expect = env.POOLTEST_EXPECT;
  if (env.POOLTEST_TIMEOUT) o.timeoutMs = parseDuration(env.POOLTEST_TIMEOUT);
  if (env.POOLTEST_STRICT) o.strict = switchFromEnv('POOLTEST_STRICT', env.POOLTEST_STRICT);
  if (env.POOLTEST_FAIL_ON_BREAKS)
    o.failOnBreaks = switchFromEnv('POOLTEST_FAIL_ON_BREAKS', env.POOLTEST_FAIL_ON_BREAKS);
  if (env.POOLTEST_MAX_POOL) {
    const n = Number(env.POOLTEST_MAX_POOL);
    if (!Number.isInteger(n) || n < 1)
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `POOLTEST_MAX_POOL "${env.POOLTEST_MAX_POOL}" is not a whole number from 1`,
      );
    o.maxPool = n;
  }
  return o;
}

/** The global setup: discover, provide, and return the teardown that sweeps. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = process.env;
  const given = Object.fromEntries(
    Object.entries(project.getProvidedContext().pooltestSetup ?? {}).filter(([, v]) => v !== undefined),
  );
  const o: PooltestSetupOptions = { ...setupOptionsFromEnv(env), ...given };
  if (!o.target && !env.PGHOST && !env.PGPORT) {
    throw new PooltestError(
      'BAD_ARGUMENTS',
      'pooltest/vitest: no target; set POOLTEST_TARGET (host:port or a postgres:// URL) or pass { target } to pooltestProject()',
    );
  }
  if (o.profile && o.expect)
    throw new PooltestError(
      'BAD_ARGUMENTS',
      'pooltest/vitest: set a profile or an expectations file, not both (an expectations file can extend a profile)',
    );
  const target = resolveTarget({ target: o.target, user: o.user, password: o.password, database: o.database }, env);
  const direct = o.direct ? resolveRelated(o.direct, target, env) : null;
  const profile = o.expect ? loadExpectations(o.expect) : o.profile ? findProfile(o.profile) : null;
  const stepMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const bounds = { connectMs: stepMs, stepMs };
  const runId = newRunId();
  // This process's live state of the run, for discovery and the sweep; the workers, which get
  // the context as data, make their own (runner/vitest-worker-setup.ts).
  const state = new RunState();
  const discovery = await discover(target, { bounds, poolBound: o.maxPool ?? DEFAULT_MAX_POOL, runId, state });
  const ctx = runContext({ target, direct, discovery, runId, bounds, fixture: false }, state);
  const provided: PooltestProvided = {
    ctx: runData(ctx),
    profile,
    strict: o.strict === true,
    failOnBreaks: o.failOnBreaks === true,
  };
  project.provide('pooltest', provided);
  return async () => {
    try {
      await sweepAfter();
    } finally {
      await Promise.all([closeSpares(state), closeKeptSessions('all', state)]);
    }
  };
  async function sweepAfter(): Promise<void> {
    // The checks' own steps stay in the workers; the backends discovery saw are what this
    // process knows about, and with a pool small enough to steer they are all of them.
    const touched = [...new Set(discovery.steps.flatMap((s) => (s.pid === null ? [] : [s.pid])))];
    const result = await sweep(
      ctx,
      CATALOGUE.map((c) => c.id),
      touched,
    );
    if (o.strict === true && sweepUnfinished(result, true)) {
      throw new PooltestError(
        'STEERING_FAILED',
        `pooltest (strict): the sweep on ${describeTarget(target)} could not finish, so the target is not proven clean: ${result.reason ?? result.leftovers.join('; ')}`,
      );
    }
    // Only what was found fails the run; a sweep that could not look says so and lets it be.
    if (result.state === 'unknown')
      console.warn(
        `pooltest: the sweep of ${describeTarget(target)} could not tell: ${result.reason ?? 'no reason given'}`,
      );
    else if (!result.clean) {
      throw new PooltestError(
        'STEERING_FAILED',
        `pooltest left state behind on ${describeTarget(target)}: ${result.leftovers.join('; ')}`,
      );
    }
  }
}

/** `1`/`true`/`yes` on, `0`/`false`/`no` off; anything else is a typo worth stopping for. */
function switchFromEnv(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes'].includes(v)) return true;
  if (['0', 'false', 'no', ''].includes(v)) return false;
  throw new PooltestError('BAD_ARGUMENTS', `${name} "${value}" is not 1/true/yes or 0/false/no`);
}
