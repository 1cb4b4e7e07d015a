/**
 * A check that declares `leavesNoState` gets no tidy-up visits after it (engine/execute/execute.ts):
 * at a distance they cost a round of logins after every crowd check. The declaration is a
 * claim about what the check sends, so it is held to it here, against real PgBouncer
 * (transaction pooling, pool of 2) and the PostgreSQL behind it:
 * - every such check runs and concludes (a check that went blind would send nothing to read);
 * - every statement it sent is read by the audit's classifier, which knows each statement and
 *   function that leaves session state: none may be found;
 * - after all of them, the final sweep's visits of every backend they touched find nothing.
 * Controls: the classifier finds state in what session/set-leak sends (so the reading above can
 * fail), and a check that declares leavesNoState but leaves a marked setting is caught by the
 * sweep (so the declaration is what skips the tidy-up, and the sweep is what still looks).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { StatementClassifier } from '../../audit/statement-classifier.js';
import { defineCheck, type CheckDefinition } from '../../engine/execute/check.js';
import { executeCheck } from '../../engine/execute/execute.js';
import { markersFor } from '../../engine/record/markers.js';
import { isRunFact } from '../../engine/record/run-facts.js';
import type { RunContext } from '../../engine/steering/scenario.js';
import { sweep } from '../../engine/sweep/sweep.js';
import type { CheckResult, StepRecord } from '../../engine/types.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { discoveredRun, releaseRun } from '../support/discovered-run.js';

const RUN_ID = '5a7e1e55';
const bounds = { connectMs: 5_000, stepMs: 5_000 };
let stack: Stack | undefined;
let ctx: RunContext;

const DECLARED = CATALOGUE.filter((c) => c.leavesNoState !== undefined) as readonly CheckDefinition[];

beforeAll(async () => {
  stack = await startStack('pgbouncer-transaction');
  ctx = await discoveredRun(stack.target.url(), stack.postgres.url(), RUN_ID, bounds);
}, 120_000);

afterAll(async () => {
  await releaseRun(ctx);
  await stack?.stop();
});

/** What the audit's classifier finds in the statements a check sent (its own notes are no SQL). */
/** The message kinds a wire step's recorded rendering lists (engine/wire/frontend.ts). */
const WIRE_MESSAGE = /^(Parse|Bind|Describe|Execute|Sync|Flush|Close|Query|CopyData|CopyDone|CopyFail|Terminate)\b/;

/**
 * The statements a step sent: its SQL, or for a wire step (pipeline/*: `Parse "" <sql>; Bind
 * ...; Sync`) the text of each Parse and Query in it.
 */
function statementsOf(sql: string): string[] {
  if (!WIRE_MESSAGE.test(sql)) return [sql];
  return [
    ...sql.matchAll(
      /(?:^|; )(?:Parse "[^"]*"|Query) (.*?)(?=; (?:Parse|Bind|Describe|Execute|Sync|Flush|Close|Query)\b|$)/g,
    ),
  ].map((m) => m[1]!);
}

function stateFoundIn(steps: readonly StepRecord[]): string[] {
  const classifier = new StatementClassifier();
  const found: string[] = [];
  for (const step of steps) {
    // Its own notes, and cancel/routing's CancelRequest (a protocol message, not a statement).
    if (isRunFact(step) || step.sql.startsWith('(') || /^CancelRequest\(/.test(step.sql)) continue;
    for (const sql of statementsOf(step.sql)) {
      const read = classifier.classify(sql);
      if (!read.ok) found.push(`${step.tag}: unreadable (${read.error}): ${sql}`);
      else for (const part of read.notable) if (part.hazards.length > 0) found.push(`${step.tag}: ${part.text}`);
    }
  }
  return found;
}

describe('checks that declare they leave no state', () => {
  const results: CheckResult[] = [];

  test('the declaring checks are the crowd, churn, cancel, handshake and pipeline checks', () => {
    expect(DECLARED.map((c) => c.id).sort()).toEqual([
      'cancel/routing',
      'capacity/connect-churn',
      'capacity/multiplexing',
      'capacity/queueing',
      'pipeline/error',
      'pipeline/transactions',
      'protocol/negotiation',
    ]);
  });

  test.each(DECLARED.map((c) => [c.id, c] as const))(
    '%s concludes, sends nothing that leaves state, and is not tidied',
    async (_id, check) => {
      const result = await executeCheck(check, ctx, null);
      results.push(result);
      expect(result.outcome, result.reason).not.toBeNull();
      expect(result.steps.filter((s) => !isRunFact(s)).length).toBeGreaterThan(0);
      expect(stateFoundIn(result.steps)).toEqual([]);
      expect(result.cleanup).toEqual({
        ok: true,
        detail: `nothing to clean, no tidy-up visit: ${check.leavesNoState}`,
      });
    },
    60_000,
  );

  test('the sweep finds nothing on any backend they touched', async () => {
    expect(results).toHaveLength(DECLARED.length);
    const touched = [...new Set(results.flatMap((r) => r.steps.map((s) => s.pid).filter((p) => p !== null)))];
    const swept = await sweep(
      ctx,
      DECLARED.map((c) => c.id),
      touched,
    );
    expect(swept.state, swept.reason).toBe('clean');
    expect(swept.leftovers).toEqual([]);
    expect(swept.backendsVisited.length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  test('control: the classifier finds the state session/set-leak leaves', async () => {
    const setLeak = CATALOGUE.find((c) => c.id === 'session/set-leak')! as CheckDefinition;
    const result = await executeCheck(setLeak, ctx, null);
    expect(result.outcome).not.toBeNull();
    expect(stateFoundIn(result.steps).join('\n')).toMatch(/SET/i);
  }, 60_000);

  test('control: a check that declares no state but leaves a marked setting is caught by the sweep', async () => {
    const id = 'test/false-claim';
    const liar = defineCheck({
      id,
      title: 'claims to leave nothing, sets a marked setting',
      summary: 'test only',
      severity: 'correctness',
      docs: [],
      outcomes: { ran: { means: 'the SET was answered' } },
      leavesNoState: 'it says so, wrongly',
      async scenario(scn) {
        const a = await scn.open('A');
        await a.run('A.create', `SET statement_timeout = '${markersFor(scn.ctx.runId, id).statementTimeout}'`);
      },
      judge: (steps) =>
        steps.some((s) => s.tag === 'A.create' && s.error === null)
          ? { outcome: 'ran', facts: {}, reason: 'set' }
          : { outcome: null, facts: {}, reason: 'not set' },
    });
    const result = await executeCheck(liar, ctx, null);
    expect(result.outcome).toBe('ran');
    // Not tidied: the check's own word was taken.
    expect(result.cleanup.ok).toBe(true);
    expect(stateFoundIn(result.steps)).not.toEqual([]);
    const touched = result.steps.map((s) => s.pid).filter((p) => p !== null);
    const swept = await sweep(ctx, [id], touched);
    expect(swept.state).toBe('dirty');
    expect(swept.leftovers.join('\n')).toMatch(/timeout_marker = 1/);
  }, 60_000);
});
