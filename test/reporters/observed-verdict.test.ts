/**
 * Verdicts that say what they mean. Without an expectation there is no pass: a leak observed
 * with no profile must never read as passing, in the terminal, in Markdown or in JUnit. Under
 * strict, a check that proved nothing fails the run and shows as a JUnit failure. Reports of
 * schema 1 (which called observations `pass`) are read as schema 2.
 */
import { describe, expect, test } from 'vitest';
import { readReport } from '../../cli/diff-command.js';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { renderMarkdown } from '../../reporters/markdown-reporter.js';
import { upgradeReport } from '../../reporters/report-compat.js';
import { renderQuiet, renderReport } from '../../reporters/terminal-reporter.js';
import { runExitCode, sweepUnfinished, verdictFor } from '../../engine/record/verdict.js';
import type { Report } from '../../engine/types.js';
import { reportSchemaErrors } from '../support/report-schema.js';
import { sweepBeforeState, sweepResult } from '../support/sweep.js';
import { pgbouncerReport, SCHEMA_ONE_FILE, schemaOneReport, troubledReport } from './samples.js';

/** The PgBouncer run as it reads with no profile: every outcome an observation. */
function unassertedReport(): Report {
  const r = pgbouncerReport();
  r.profile = null;
  for (const c of r.checks) {
    c.expected = null;
    c.expectedRef = null;
    c.verdict = verdictFor(c.outcome, null);
  }
  const count = (v: string): number => r.checks.filter((c) => c.verdict === v).length;
  r.summary = { ...r.summary, pass: count('pass'), observed: count('observed'), fail: 0, exitCode: 0 };
  return r;
}

describe('observed: an outcome with no expectation', () => {
  test('the sample is what a run without --profile produces: no pass at all, and it fits the schema', () => {
    const r = unassertedReport();
    expect(r.summary.pass).toBe(0);
    expect(r.summary.observed).toBe(r.checks.length);
    expect(reportSchemaErrors(r)).toEqual([]);
  });

  test('the terminal shows a leak as observed and breaking, with its severity, never as pass', () => {
    const out = renderReport(unassertedReport(), { color: false });
    expect(out).toMatch(/session\/set-leak\s+leaked\s+-\s+observed: BREAKS \(correctness\)/);
    // SET LOCAL's state is scoped to the transaction on any pooler: an observation that breaks nothing.
    expect(out).toMatch(/session\/set-local\s+scoped\s+-\s+observed: no break/);
    expect(out).not.toMatch(/\spass$/m);
    expect(out).toMatch(/0 pass, 0 fail, \d+ observed/);
  });

  test('Markdown shows no green tick for an observation, and says which observations break', () => {
    const md = renderMarkdown(unassertedReport());
    expect(md).not.toContain('✅');
    expect(md).toMatch(/`session\/set-leak`.*\| ❗ \*\*observed: BREAKS \(correctness\)\*\* \|/);
    expect(md).toMatch(/`session\/set-local`.*\| observed: no break \|/);
  });

  test('JUnit reports an observation as a testcase that ran, never skipped: its system-out says what it breaks', () => {
    const xml = renderJunit(unassertedReport());
    expect(xml).not.toContain('<skipped');
    expect(xml).toContain(
      'session/set-leak: observed: leaked - BREAKS an application written for a direct connection (correctness); nothing was asserted',
    );
    expect(xml).toMatch(/<testsuites [^>]*failures="0" errors="0" skipped="0"/);
  });
});

describe('--strict', () => {
  const strictTroubled = (): Report => {
    const r = troubledReport();
    r.summary.strict = true;
    return r;
  };

  test('JUnit turns an inconclusive check into a failure that carries the reason', () => {
    const r = strictTroubled();
    const xml = renderJunit(r);
    const reason = r.checks.find((c) => c.id === 'temp/temp-table')!.reason;
    expect(reason).toMatch(/^steering failed: /);
    expect(xml).toContain(`<failure type="inconclusive" message="inconclusive: ${reason}">`);
    // set-leak failed, temp-table inconclusive, the sweep dirty: three failures; one skip left.
    expect(xml).toMatch(/<testsuites [^>]*failures="3" errors="0" skipped="1"/);
    // Control: the same report without strict keeps inconclusive as a skip.
    expect(renderJunit(troubledReport())).toMatch(/<testsuites [^>]*failures="2" errors="0" skipped="2"/);
  });

  test('--quiet lists an inconclusive check as a failure under strict', () => {
    expect(renderQuiet(strictTroubled(), { color: false })).toMatch(
      /^FAIL temp\/temp-table: inconclusive under --strict: steering failed/m,
    );
  });

  test('the exit code: inconclusive fails only under strict; so does a sweep that could not finish', () => {
    const step = [{}];
    const inconclusive = [
      { verdict: 'pass' as const, steps: step },
      { verdict: 'inconclusive' as const, steps: [] },
    ];
    // A report from before `state` existed: `clean` alone says the sweep found nothing.
    const clean = sweepBeforeState(true);
    expect(runExitCode(inconclusive, clean, false)).toBe(0);
    expect(runExitCode(inconclusive, clean, true)).toBe(1);
    // Every check inconclusive: the case a vendor's CI must not take for green.
    expect(runExitCode([{ verdict: 'inconclusive', steps: step }], clean, true)).toBe(1);
    expect(
      runExitCode(
        [
          { verdict: 'observed', steps: step },
          { verdict: 'skipped', steps: [] },
        ],
        clean,
        true,
      ),
    ).toBe(0);
    // Every check skipped: each skip is explained, but under strict the run proved nothing.
    const allSkipped = [
      { verdict: 'skipped' as const, steps: [] },
      { verdict: 'skipped' as const, steps: [] },
    ];
    expect(runExitCode(allSkipped, null, true)).toBe(1);
    expect(runExitCode(allSkipped, null, false)).toBe(0);
    expect(runExitCode([{ verdict: 'pass', steps: step }], sweepResult('clean'), true)).toBe(0);
    expect(runExitCode([{ verdict: 'pass', steps: step }], null, true)).toBe(1);
    expect(runExitCode([{ verdict: 'pass', steps: step }], null, false)).toBe(0);
    // `clean` is false here as the engine writes it: the state, not `clean`, says it could not look.
    const unknown = sweepResult('unknown', { reason: 'the target refused the sweep' });
    expect(sweepUnfinished(unknown, true)).toBe(true);
    expect(runExitCode([{ verdict: 'pass', steps: step }], unknown, true)).toBe(1);
    expect(runExitCode([{ verdict: 'pass', steps: step }], unknown, false)).toBe(0);
    expect(runExitCode([{ verdict: 'fail', steps: step }], clean, false)).toBe(1);
    expect(runExitCode([{ verdict: 'pass', steps: step }], sweepBeforeState(false), false)).toBe(1);
    expect(runExitCode([{ verdict: 'pass', steps: step }], sweepResult('dirty'), false)).toBe(1);
  });
});

describe('reports of schema 1', () => {
  test('an old `pass` with no expectation reads as observed; a pass against an expectation stays pass', () => {
    const old = schemaOneReport();
    expect(old.schemaVersion).toBe(1);
    const unexpected = old.checks.filter((c) => c.verdict === 'pass' && c.expected === null).map((c) => c.id);
    const expectedPass = old.checks.filter((c) => c.verdict === 'pass' && c.expected !== null).map((c) => c.id);
    expect(unexpected.length + expectedPass.length).toBeGreaterThan(0);
    const upgraded = upgradeReport(old);
    expect(upgraded.schemaVersion).toBe(2);
    for (const id of unexpected) expect(upgraded.checks.find((c) => c.id === id)?.verdict).toBe('observed');
    for (const id of expectedPass) expect(upgraded.checks.find((c) => c.id === id)?.verdict).toBe('pass');
    expect(upgraded.summary).toMatchObject({ pass: expectedPass.length, observed: unexpected.length, strict: false });
    expect(reportSchemaErrors(upgraded)).toEqual([]);
  });

  test('pooltest diff reads a schema 1 report file as schema 2', () => {
    const read = readReport(SCHEMA_ONE_FILE);
    expect(read.schemaVersion).toBe(2);
    expect(read.summary.observed).toBe(upgradeReport(schemaOneReport()).summary.observed);
  });

  test('a schema 2 report is left as it is', () => {
    const r = troubledReport();
    expect(upgradeReport(r)).toBe(r);
  });
});
