/**
 * The JUnit report as a CI screen reads it (issue 40): without a profile it marked 26 of 27
 * testcases `skipped`, the 14 breaking observations among them, so GitHub's or GitLab's test
 * tab showed a run that tested nothing. Parsed here with fast-xml-parser and counted as a CI
 * system counts: tests, failures, skipped, and the testcases that passed.
 */
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, test } from 'vitest';
import type { Report } from '../../engine/types.js';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { outcomeBreaks } from '../../suites/outcome-breaks.js';
import { recordedReport, summed } from '../support/recorded-report.js';

interface Case {
  name: string;
  failure?: { type: string; message: string };
  skipped?: { message: string };
  'system-out'?: string;
}

/** What a CI screen shows: its totals from the suite's attributes, and each testcase's state. */
function ciScreen(xml: string): { tests: number; failures: number; skipped: number; passed: string[]; cases: Case[] } {
  const doc = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => name === 'testcase',
  }).parse(xml) as {
    testsuites: { testsuite: { tests: string; failures: string; skipped: string; testcase: Case[] } };
  };
  const suite = doc.testsuites.testsuite;
  const cases = suite.testcase;
  // A CI system's own count, from the testcases, must agree with the attributes it also reads.
  expect(cases.length).toBe(Number(suite.tests));
  expect(cases.filter((c) => c.failure).length).toBe(Number(suite.failures));
  expect(cases.filter((c) => c.skipped !== undefined).length).toBe(Number(suite.skipped));
  return {
    tests: Number(suite.tests),
    failures: Number(suite.failures),
    skipped: Number(suite.skipped),
    passed: cases.filter((c) => !c.failure && c.skipped === undefined).map((c) => c.name),
    cases,
  };
}

const breaking = (r: Report): string[] => r.checks.filter((c) => outcomeBreaks(c.outcome) === true).map((c) => c.id);

describe('no profile: every check an observation', () => {
  const report = recordedReport('pgbouncer-transaction', null);

  test('the checks that ran are testcases that ran: none skipped, none failed, the breaks told in system-out', () => {
    const screen = ciScreen(renderJunit(report));
    expect(screen.skipped).toBe(0);
    expect(screen.failures).toBe(0);
    expect(screen.passed).toHaveLength(screen.tests);
    const leak = screen.cases.find((c) => c.name === 'session/set-leak')!;
    expect(leak['system-out']).toMatch(
      /^session\/set-leak: observed: leaked - BREAKS an application written for a direct connection \(correctness\); nothing was asserted\nadvice: /,
    );
    const local = screen.cases.find((c) => c.name === 'session/set-local')!;
    expect(local['system-out']).toMatch(/^session\/set-local: observed: scoped - no break/);
  });

  test('--fail-on-breaks: each breaking outcome is a failure of its own type, the rest pass', () => {
    const strictBreaks = summed({ ...report, summary: { ...report.summary, failOnBreaks: true } });
    const screen = ciScreen(renderJunit(strictBreaks));
    const failed = screen.cases.filter((c) => c.failure).map((c) => c.name);
    expect(failed.sort()).toEqual(breaking(report).sort());
    expect(failed.length).toBeGreaterThanOrEqual(10);
    for (const c of screen.cases.filter((x) => x.failure)) expect(c.failure!.type).toBe('breaks-application');
    expect(screen.skipped).toBe(0);
  });

  test('a check that really did not run is still skipped (control)', () => {
    const edited = recordedReport('pgbouncer-transaction', null);
    Object.assign(
      edited.checks.find((c) => c.id === 'cursors/with-hold')!,
      {
        outcome: null,
        verdict: 'skipped',
        reason: 'needs --direct',
      },
    );
    const screen = ciScreen(renderJunit(summed(edited)));
    expect(screen.skipped).toBe(1);
    expect(screen.cases.find((c) => c.name === 'cursors/with-hold')!.skipped!.message).toBe('skipped: needs --direct');
  });
});

test('with a profile, an expected break passes; --fail-on-breaks fails it too, saying it was expected', () => {
  const report = recordedReport('pgbouncer-transaction', 'pgbouncer-transaction');
  const plain = ciScreen(renderJunit(report));
  expect(plain.failures).toBe(report.checks.filter((c) => c.verdict === 'fail').length);
  expect(plain.passed).toContain('session/set-leak');
  const gated = ciScreen(renderJunit({ ...report, summary: { ...report.summary, failOnBreaks: true } }));
  const leak = gated.cases.find((c) => c.name === 'session/set-leak')!;
  expect(leak.failure).toMatchObject({ type: 'breaks-application' });
  expect(leak.failure!.message).toMatch(
    /^leaked breaks an application written for a direct connection \(correctness\), as expected$/,
  );
  const failing = report.checks.filter((c) => c.verdict === 'fail' || outcomeBreaks(c.outcome) === true);
  expect(gated.failures).toBe(failing.length);
});
