/**
 * Driver judgements through the engine's vetoes (drivers/vetoes.ts), and retries seen in the
 * server's log (drivers/server-log.ts), on recorded runs (test/recorded/drivers-*.json) and
 * mutations of them: a label must give way to `inconclusive` with the reason where the record
 * shows another run, an outage, a refusal at capacity; and a `works` must become `retried`
 * exactly when the server logged an error on the backend the step ran on, while it ran.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { judgeDriverRun, phaseSteps } from '../../drivers/judge.js';
import { vetoed } from '../../drivers/vetoes.js';
import { attachServerErrors, parseServerLog, ServerLogReader } from '../../drivers/server-log.js';
import { OTHER_RUNS_TAG } from '../../engine/steering/other-runs.js';
import type { DriversReport } from '../../drivers/run-drivers.js';
import type { Discovery, StepRecord } from '../../engine/types.js';

const load = (stack: string) =>
  JSON.parse(readFileSync(new URL(`../recorded/drivers-${stack}.json`, import.meta.url), 'utf8')) as DriversReport;
const tx = load('pgbouncer-transaction');
const discovery = tx.discovery as Discovery;

function record(driver: string, config: string): StepRecord[] {
  const r = tx.records.find((x) => x.driver === driver && x.config === config);
  if (!r) throw new Error(`no record of ${driver} ${config}`);
  return structuredClone(r.steps);
}
const stepOf = (steps: StepRecord[], tag: string): StepRecord => {
  const s = steps.find((x) => x.tag === tag);
  if (!s) throw new Error(`no ${tag}`);
  return s;
};
function judged(steps: StepRecord[], scenario: 'moved' | 'collision' | 'cursor') {
  const j = judgeDriverRun(steps, discovery, [scenario])[scenario]!;
  return vetoed(j, steps, discovery, scenario);
}

describe("the engine's vetoes on driver judgements", () => {
  test('control: the recorded run keeps its labels through the vetoes', () => {
    const steps = record('asyncpg', 'default');
    expect(judged(steps, 'moved').outcome).toBe('failed');
    expect(judged(record('asyncpg', 'statement_cache_size=0'), 'moved').outcome).toBe('works');
  });

  test('another pooltest run active during the configuration: inconclusive, saying so', () => {
    const steps = record('asyncpg', 'default');
    steps.push({
      ...stepOf(steps, 'A.close'),
      seq: 9999,
      session: 'engine',
      tag: OTHER_RUNS_TAG,
      results: [[{ other_runs: 1 }]],
      pid: null,
    });
    const j = judged(steps, 'moved');
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/1 other pooltest run\(s\) worked on this target/);
    expect(j.facts.unprovenOutcome).toBe('failed');
  });

  test("a restarting server's error is an outage, not the driver's failure", () => {
    const steps = record('asyncpg', 'statement_cache_size=0');
    const next = stepOf(steps, 'moved:A.readback');
    next.error = { code: '57P01', message: 'terminating connection due to administrator command' };
    const j = judged(steps, 'moved');
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/target was unavailable during the check/);
    // The outage was in the moved phase: the cursor phase, later, keeps its label.
    expect(judged(steps, 'cursor').outcome).toBe('works');
  });

  test('a refusal at capacity in the phase is no answer of the driver', () => {
    const steps = record('asyncpg', 'statement_cache_size=0');
    const b = stepOf(steps, 'collision:B.create');
    b.error = { code: '53300', message: 'sorry, too many clients already' };
    const j = judged(steps, 'collision');
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/had no room for a client|not steerable here/);
  });

  test("each scenario's vetoes read its own phase, the unprefixed steps, and (collision) A's first use", () => {
    const tags = (s: string) => phaseSteps(record('asyncpg', 'default'), s as 'moved').map((x) => x.tag);
    expect(tags('moved').every((t) => !t.includes(':') || t.startsWith('moved:'))).toBe(true);
    expect(tags('collision')).toContain('moved:A.create');
    expect(tags('collision').some((t) => t.startsWith('cursor:'))).toBe(false);
  });
});

describe("retries seen in the server's log", () => {
  const line = (at: Date, pid: number, msg: string) =>
    `${at.toISOString().replace('T', ' ').replace('Z', '')} UTC [${pid}] pooltest@pooltest ERROR:  ${msg}`;

  test("parses the fixtures' log_line_prefix, and leaves out other zones and other severities", () => {
    const at = new Date('2026-12-01T23:57:18.400Z');
    const text = [
      line(at, 4533, 'prepared statement "S_1" does not exist'),
      '2026-12-01 23:57:18.401 UTC [4533] pooltest@pooltest STATEMENT:  SELECT 1',
      '2026-12-01 23:57:18.402 UTC [4533] pooltest@pooltest LOG:  duration: 1 ms',
      '2026-12-01 23:57:18.403 CET [4533] pooltest@pooltest ERROR:  not in UTC',
    ].join('\n');
    expect(parseServerLog(text)).toEqual([
      { atMs: at.getTime(), pid: 4533, message: 'prepared statement "S_1" does not exist', statement: 'SELECT 1' },
    ]);
  });

  test("a failed DEALLOCATE on the step's backend while it ran is a driver's tidy-up, not a retry; control: the same error on an EXECUTE is", () => {
    const steps = record('asyncpg', 'statement_cache_size=0');
    const next = stepOf(steps, 'moved:A.readback');
    const origin = Date.parse('2026-12-01T00:00:00Z');
    const at = new Date(origin + next.startMs + 1);
    const text = (statement: string) =>
      [
        line(at, next.pid!, 'prepared statement "pdo_stmt_00000001" does not exist'),
        `${at.toISOString().replace('T', ' ').replace('Z', '')} UTC [${next.pid}] pooltest@pooltest STATEMENT:  ${statement}`,
      ].join('\n');
    const cleanup = record('asyncpg', 'statement_cache_size=0');
    attachServerErrors(cleanup, parseServerLog(text('DEALLOCATE pdo_stmt_00000001')), origin);
    expect(judged(cleanup, 'moved').outcome).toBe('works');
    attachServerErrors(steps, parseServerLog(text('EXECUTE pdo_stmt_00000001')), origin);
    expect(judged(steps, 'moved').outcome).toBe('retried');
  });

  function withLogged(pidOf: (s: StepRecord) => number | null, offsetMs: number) {
    const steps = record('asyncpg', 'statement_cache_size=0');
    const next = stepOf(steps, 'moved:A.readback');
    const origin = Date.parse('2026-12-01T00:00:00Z');
    const pid = pidOf(next)!;
    attachServerErrors(
      steps,
      [{ atMs: origin + next.startMs + offsetMs, pid, message: 'prepared statement "x" does not exist' }],
      origin,
    );
    return judged(steps, 'moved');
  }

  test("an error the server logged on the step's backend while it ran makes `works` `retried`", () => {
    const j = withLogged((s) => s.pid, 1);
    expect(j.outcome).toBe('retried');
    expect(j.reason).toMatch(/prepared statement "x" does not exist \(server log, backend \d+\)/);
  });

  test('controls: the same error on another backend, or outside the step, changes nothing', () => {
    expect(withLogged((s) => (s.pid ?? 0) + 1, 1).outcome).toBe('works');
    expect(withLogged((s) => s.pid, -1000).outcome).toBe('works');
  });

  test("an error logged after the agent's next step began is not this step's (PDO's DEALLOCATE at close)", () => {
    const steps = record('asyncpg', 'statement_cache_size=0');
    const use = stepOf(steps, 'moved:A.readback');
    const origin = Date.parse('2026-12-01T00:00:00Z');
    const end = use.startMs + use.durationMs;
    // The agent's next step begins 2 ms after this one ends, inside the 50 ms slack.
    const after = steps.slice(steps.indexOf(use) + 1).find((s) => s.session === use.session)!;
    after.startMs = end + 2;
    const at = (ms: number) => [
      { atMs: Math.floor(origin + ms), pid: use.pid!, message: 'prepared statement "x" does not exist' },
    ];
    const judgedWith = (ms: number) => {
      const copy = structuredClone(steps);
      attachServerErrors(copy, at(ms), origin);
      return judged(copy, 'moved').outcome;
    };
    expect(judgedWith(end + 3)).toBe('works');
    // Control: the same error logged as the step ends, before the next began, is its retry.
    expect(judgedWith(end)).toBe('retried');
  });

  test('the reader reads only what was appended since it opened, whole lines only', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-serverlog-'));
    try {
      const file = path.join(dir, 'postgres.log');
      writeFileSync(file, `${line(new Date(), 1, 'before')}\n`);
      const reader = ServerLogReader.open(file);
      if ('unreadable' in reader) throw new Error(reader.unreadable);
      appendFileSync(file, `${line(new Date(), 2, 'after')}\n${line(new Date(), 3, 'half')}`);
      expect(reader.readNew().map((e) => e.message)).toEqual(['after']);
      appendFileSync(file, '\n');
      expect(reader.readNew().map((e) => e.message)).toEqual(['half']);
      const missing = ServerLogReader.open(path.join(dir, 'none.log'));
      expect('unreadable' in missing && missing.unreadable).toMatch(/cannot be read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('judge corrections found by the stored runs (docs/drivers.json)', () => {
  // PgBouncer 1.25.2 with max_prepared_statements 0, at load 17: asyncpg's defaults read
  // `works` ("A kept its own backend (queue)"): the observer's take was only slow, and A ran on
  // b1 again. Where backends are shared, staying on b1 is no move.
  test('transaction pooling: A back on its old backend with nobody on it is inconclusive, not `works`', () => {
    const steps = record('asyncpg', 'default');
    const b1 = stepOf(steps, 'moved:A.create').pid!;
    const next = stepOf(steps, 'moved:A.readback');
    Object.assign(next, { pid: b1, error: null, results: [[{ pid: b1, answer: 42 }]] });
    for (const t of steps.filter((x) => x.tag === 'moved:observe.take'))
      Object.assign(t, { timedOut: true, pid: null });
    const j = judged(steps, 'moved');
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/ran on its old backend \d+ again: nothing was moved/);
  });

  test("a collision is not judged when A's own first use failed (Odyssey without reserved statements)", () => {
    const steps = record('asyncpg', 'statement_cache_size=0');
    expect(judged(steps, 'collision').outcome).toBe('works'); // control
    stepOf(steps, 'moved:A.create').error = {
      code: '26000',
      message: 'prepared statement "__asyncpg_stmt_1__" does not exist',
    };
    const j = judged(steps, 'collision');
    expect(j.outcome).toBeNull();
    expect(j.reason).toMatch(/^not run: A's own first use failed \(26000 prepared statement/);
  });
});
