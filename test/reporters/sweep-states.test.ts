/**
 * A sweep that could not look is `unknown` in every format, never "DIRTY - pooltest left state
 * behind"; a dirty one still fails; an interrupted run says so in its summary. Every variant
 * is a valid report under the published schema (older reports without `state` too).
 */
import { describe, expect, test } from 'vitest';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { renderMarkdown } from '../../reporters/markdown-reporter.js';
import { renderReport } from '../../reporters/terminal-reporter.js';
import { sweepState, type Report } from '../../engine/types.js';
import { assertValidReport } from '../support/report-schema.js';
import { sweepBeforeState, sweepResult } from '../support/sweep.js';
import { pgbouncerReport } from './samples.js';

const REASON =
  'the sweep could not finish: connection to pooltest@127.0.0.1:6432/pooltest refused: nothing listens on port 6432';

function unknownSweep(): Report {
  const r = pgbouncerReport();
  r.sweep = sweepResult('unknown', { reason: REASON });
  return r;
}

const view = { color: false, verbose: false, width: 120 };

describe('the sweep in every format', () => {
  test('unknown: the reason, no DIRTY, and JUnit counts it as skipped, not failed', () => {
    const r = unknownSweep();
    assertValidReport(JSON.parse(JSON.stringify(r)));
    const text = renderReport(r, view);
    expect(text).toMatch(
      /Sweep: unknown - could not look for leftovers: the sweep could not finish: connection .* refused/,
    );
    expect(text).not.toMatch(/DIRTY|left state behind/);
    expect(renderMarkdown(r)).toMatch(/Sweep: \*unknown\*, could not look for leftovers: /);
    expect(renderMarkdown(r)).not.toMatch(/dirty/i);
    const xml = renderJunit(r);
    const sweepCase = /<testcase[^>]*name="pooltest\/sweep"[\s\S]*?<\/testcase>/.exec(xml)?.[0] ?? '';
    expect(sweepCase).toMatch(/<skipped message="the sweep could not look for leftovers: /);
    expect(sweepCase).not.toMatch(/<failure/);
    expect(xml).toMatch(/<testsuites[^>]* failures="0"/);
  });

  test('dirty: still named as pooltest leaving state behind, and a JUnit failure', () => {
    const r = pgbouncerReport();
    r.sweep = sweepResult('dirty', { backendsVisited: [7], leftovers: ['backend 7: locks = 1'] });
    expect(renderReport(r, view)).toMatch(/Sweep: DIRTY - pooltest left state behind: backend 7: locks = 1/);
    expect(renderJunit(r)).toMatch(/<failure type="leftover-state"/);
  });

  test('a report written before `state` existed reads as clean or dirty from `clean`', () => {
    const r = pgbouncerReport();
    r.sweep = sweepBeforeState(false, { backendsVisited: [7], leftovers: ['backend 7: locks = 1'] });
    assertValidReport(JSON.parse(JSON.stringify(r)));
    expect(sweepState(r.sweep)).toBe('dirty');
    expect(sweepState({ ...r.sweep, clean: true, leftovers: [] })).toBe('clean');
  });

  test('an interrupted run: exit 130 is valid, and every format says interrupted', () => {
    const r = unknownSweep();
    r.summary = { ...r.summary, exitCode: 130, interrupted: true };
    assertValidReport(JSON.parse(JSON.stringify(r)));
    expect(renderReport(r, view)).toMatch(/skipped, interrupted .*exit 130/);
    expect(renderMarkdown(r)).toMatch(/skipped, interrupted\. .*Exit code 130\./);
    expect(renderJunit(r)).toMatch(/<property name="interrupted" value="true"\/>/);
  });
});
