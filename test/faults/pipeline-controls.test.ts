/**
 * The control of pipeline/error (issue 38): a pooler that stops relaying a pipeline's answers
 * once a statement in the middle failed leaves its client waiting forever. Played by the fault
 * proxy in front of real PostgreSQL 15 (dropAnswersAfterError: the ErrorResponse arrives, its
 * ReadyForQuery and everything after it never do): the check must say `stalled`, with how long
 * it waited, within its bound. Without the fault, through the same proxy, `recovered`.
 * A pipeline with no error is untouched by that fault (`ordered`): it is aimed at errors, not
 * at pipelines. And pipeline/transactions and pipeline/prepared, their first pipeline
 * black-holed by the proxy, say `stalled` too.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { executeCheck } from '../../engine/execute/execute.js';
import { disconnect } from '../../suites/pipeline/disconnect.check.js';
import { error } from '../../suites/pipeline/error.check.js';
import { prepared } from '../../suites/pipeline/prepared.check.js';
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

/** Two or more Syncs in one chunk: a client's pipeline. */
const pipelined = (chunk: Buffer): boolean => chunk.toString('latin1').split('S\0\0\0\x04').length > 2;

test.each([
  ['pipeline/transactions', transactions],
  ['pipeline/prepared', prepared],
] as const)(
  'control: %s, its pipeline black-holed by the proxy: stalled, with the wait',
  async (_id, check) => {
    // The first pipeline A writes: its connection stops moving bytes both ways for longer than the bound.
    env.proxy.afterChunk('toServer', pipelined, (n) => env.proxy.blackhole(n, 3 * STEP_MS));
    const r = await executeCheck(check, env.ctx, null);
    expect(r.outcome, r.reason).toBe('stalled');
    expect(String(r.facts.unanswered)).toMatch(/A\.pipe\.1: no complete answer within \d+ ms/);
  },
  120_000,
);

test.each([
  ['pipeline/error', error, 'recovered'],
  ['pipeline/transactions', transactions, 'ordered'],
  ['pipeline/prepared', prepared, 'works'],
  ['pipeline/disconnect', disconnect, 'clean'],
] as const)(
  'without a fault, through the same proxy to PostgreSQL 15: %s is %s',
  async (_id, check, good) => {
    const r = await executeCheck(check, env.ctx, null);
    expect(r.outcome, r.reason).toBe(good);
  },
  120_000,
);
