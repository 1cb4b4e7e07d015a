/**
 * Wiring a check into Vitest: one `test()` per check file. The run context (target,
 * discovery, profile) arrives through Vitest's provide/inject, set by pooltest's runner or by
 * the global setup a vendor adds to their own Vitest config. The full result travels back to
 * the reporter in `task.meta.pooltest`.
 *
 * What arrives is data; the run's live state in this worker (run-state.ts) comes from the test
 * context's `pooltestRunState`, which pooltest's worker setup file sets
 * (runner/vitest-worker-setup.ts): one state per run for every check file in the worker. A
 * test run without that setup file gives each check a state of its own, so a check does not
 * learn what an earlier one found (a smaller pool, a target gone) nor share its spares.
 */
import { expect, inject, test } from 'vitest';
import type { CheckDefinition } from '../engine/execute/check.js';
import { awaitContext } from './context-channel.js';
import { executeCheck, WAIT_ANNOTATION } from '../engine/execute/execute.js';
import { runContext, type RunState } from '../engine/context/run-state.js';
import type { RunData } from '../engine/steering/scenario.js';
import type { Profile } from '../engine/record/profile.js';
import type { CheckResult } from '../engine/types.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';

/** What pooltest provides to the test workers. */
export interface PooltestProvided {
  /** Data only: it is serialized on its way to the workers (see run-state.ts). */
  ctx: RunData;
  profile: Profile | null;
  /** `--strict` / `POOLTEST_STRICT`: an inconclusive check fails its test instead of skipping. */
  strict?: boolean;
  /**
   * `--fail-on-breaks` / `POOLTEST_FAIL_ON_BREAKS`: a check whose outcome breaks
   * transaction-pooled clients fails its test, even where a profile expected that outcome.
   */
  failOnBreaks?: boolean;
}

declare module 'vitest' {
  export interface ProvidedContext {
    pooltest: PooltestProvided;
    /**
     * Instead of `pooltest`: the channel on which the context arrives once discovery is done
     * (runner/context-channel.ts). pooltest's runner starts Vitest before it has the context.
     */
    pooltestChannel?: string;
  }
  export interface TaskMeta {
    pooltest?: CheckResult;
    /** The check's scenario began (it may have touched the target), result or not. */
    pooltestBegan?: boolean;
  }
  export interface TestContext {
    /** The worker's one live state of the run `ctx` belongs to (runner/vitest-worker-setup.ts). */
    pooltestRunState?: (ctx: RunData) => RunState;
  }
}

/** A check's whole run is bounded by its steps; this is only a safety net. */
const TEST_TIMEOUT_MS = 120_000;

/** How long a cancelled check may take to close its sessions and tidy up before Vitest reports it. */
const WIND_DOWN_MS = 60_000;

/**
 * Declares the Vitest test for a check. A failed expectation fails the test; inconclusive skips
 * it, or fails it under strict; an observation (nothing expected) passes, as nothing was asserted.
 */
export function checkTest(def: CheckDefinition): void {
  test(`${def.id}: ${def.title}`, { timeout: TEST_TIMEOUT_MS }, async (context) => {
    const { task, skip, signal, annotate, onTestFinished } = context;
    // Cancelled (pooltest's SIGINT handling), Vitest ends the test the moment its signal aborts,
    // without waiting for this function: the check is still closing its sessions and tidying
    // up, and its result would never reach the reporter, which then took the check for one that
    // never started. Vitest awaits this hook before it reports the test: the result is there.
    // Bounded by the hook's timeout; the check's own wind-down is bounded by its steps.
    let running: Promise<CheckResult> | null = null;
    onTestFinished(async () => {
      if (running && !task.meta.pooltest) task.meta.pooltest = await running;
    }, WIND_DOWN_MS);
    const channel = inject('pooltestChannel');
    const provided = channel ? await awaitContext(channel) : inject('pooltest');
    if (!provided) {
      throw new Error(
        "pooltest: no target was provided to this test; run it through the pooltest CLI or add pooltest's globalSetup to your Vitest config",
      );
    }
    // Vitest aborts `signal` when the run is cancelled (pooltest's SIGINT handling): the
    // scenario then stops at once and the check ends inconclusive.
    // Waits reach pooltest's reporter while the check runs, as annotations of this test.
    const onWait = (what: string, boundMs: number): void =>
      void annotate(JSON.stringify({ what, boundMs }), WAIT_ANNOTATION).catch(() => undefined);
    const ctx = runContext(provided.ctx, context.pooltestRunState?.(provided.ctx));
    task.meta.pooltestBegan = true;
    running = executeCheck(def, ctx, provided.profile, signal, { onWait });
    const result = await running;
    task.meta.pooltest = result;
    if (provided.failOnBreaks === true && outcomeBreaks(result.outcome) === true) {
      expect.fail(
        `${def.id}: "${result.outcome}" breaks transaction-pooled clients (--fail-on-breaks): ${result.reason}`,
      );
    }
    if (result.verdict === 'fail') {
      expect.fail(
        `${def.id}: observed "${result.outcome}", expected "${result.expected}" (${result.expectedRef}): ${result.reason}`,
      );
    }
    if (result.verdict === 'inconclusive') {
      if (provided.strict === true) expect.fail(`${def.id}: inconclusive under --strict: ${result.reason}`);
      skip(`inconclusive: ${result.reason}`);
    }
    if (result.verdict === 'skipped') skip(result.reason);
  });
}
