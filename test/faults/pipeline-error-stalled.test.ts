/**
 * The control of pipeline/error (issue 38): a pooler that stops relaying a pipeline's answers
 * once a statement in the middle failed leaves its client waiting forever. Played by the fault
 * proxy in front of real PostgreSQL 15 (dropAnswersAfterError: the ErrorResponse arrives, its
 * ReadyForQuery and everything after it never do): the check must say `stalled`, with how long
 * it waited, within its bound. Without the fault, through the same proxy, `recovered`.
 * The same fault must break pipeline/transactions' neighbour too: a pipeline with no error is
 * untouched by it (`ordered`), which shows the fault is aimed at errors, not at pipelines.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { executeCheck } from '../../engine/execute/execute.js';
import { error } from '../../suites/pipeline/error.check.js';
import { transactions } from '../../suites/pipeline/transactions.check.js';
import { startProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';
import { releaseRun } from '../support/discovered-run.js';

/** The step bound: how long a stalled pipeline is waited for. */
const STEP_MS = 3_000;
let env: ProxiedPostgres;

beforeAll(async () => {
  env = await startProxiedPostgres('919e11e0', { connectMs: 5_000, stepMs: STEP_MS });
}, 120_000);

afterAll(async () => {
  await releaseRun(env?.ctx);
  await env?.stop();
});

test('control: answers lost after the error in a pipeline read as stalled, with the wait', async () => {
  env.proxy.dropAnswersAfterError(true);
  try {
    const started = performance.now();
    const r = await executeCheck(error, env.ctx, null);
    const ms = performance.now() - started;
    expect(env.proxy.answersCut()).toBeGreaterThanOrEqual(1);
    expect(r.outcome, r.reason).toBe('stalled');
    expect(String(r.facts.unanswered)).toMatch(
      /A\.pipe\.2: no complete answer within \d+ ms after its ErrorResponse \(22012/,
    );
    // One stalled exchange, then the check stops: well within a minute on a loaded machine.
    expect(ms).toBeLessThan(60_000);
  } finally {
    env.proxy.dropAnswersAfterError(false);
  }
}, 120_000);

test('the same fault leaves a pipeline without an error alone: ordered', async () => {
  env.proxy.dropAnswersAfterError(true);
  try {
    const cutBefore = env.proxy.answersCut();
    const r = await executeCheck(transactions, env.ctx, null);
    expect(r.outcome, r.reason).toBe('ordered');
    expect(env.proxy.answersCut()).toBe(cutBefore);
  } finally {
    env.proxy.dropAnswersAfterError(false);
  }
}, 120_000);

test('without the fault, through the same proxy: recovered', async () => {
  const r = await executeCheck(error, env.ctx, null);
  expect(r.outcome, r.reason).toBe('recovered');
}, 120_000);
