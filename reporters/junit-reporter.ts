/**
 * The JUnit XML report (`--junit FILE`), for CI systems that show test results: GitHub Actions
 * junit reporters, GitLab's test reports, Jenkins. One testcase per check, named by its stable
 * id and classed by area, so CI history follows a check across runs. What a CI screen shows:
 *
 * - a failed expectation is a `<failure>`;
 * - an observation (nothing expected: no --profile or --expect) is a testcase that passed, as
 *   the run's exit code says, its `<system-out>` opening with what was observed and whether it
 *   breaks an application (`observed: leaked - BREAKS an application ...`) and its properties
 *   saying so (`verdictText`, `breaks`). It is not `<skipped>`: the check ran, and a CI screen
 *   that shows every check skipped says the run tested nothing. Under `--fail-on-breaks` every
 *   outcome that breaks an application (expected by a profile or not) is a
 *   `<failure type="breaks-application">`, as the exit code is then 1;
 * - `<skipped>` is kept for what did not run or proved nothing: a skipped check, and an
 *   inconclusive one with the reason (under `--strict` a `<failure type="inconclusive">`).
 *
 * Outcome, facts and evidence are properties; the recorded steps go to `<system-out>`, the one
 * place every CI system displays. A final `pooltest/sweep` testcase fails when the run left
 * state behind. docs/report-format.md says why, for the reader of a CI screen.
 */
import { sweepState, type CheckResult, type Report } from '../engine/types.js';
import { sweepText } from './sweep-text.js';
import { describeWireFinding } from '../engine/discovery/probes.js';
import { redactUrl } from '../engine/target/target.js';
import { poolerName, poolText, targetText } from './report-text.js';
import { stepLine } from './step-text.js';
import { attributes, escapeXml } from './xml.js';
import { observedReading, reportCounts, verdictPhrase } from './verdict-text.js';
import { summaryCounts } from './summary-counts.js';
import { sweepUnfinished } from '../engine/record/verdict.js';

/** Renders `report` as a JUnit XML document. */
export function renderJunit(report: Report): string {
  const strict = report.summary.strict === true;
  const mode: CaseMode = { strict, failOnBreaks: report.summary.failOnBreaks === true };
  const cases = report.checks.map((c) => testcase(c, mode));
  const sweep = sweepCase(report, strict);
  const tests = cases.length + (sweep.xml ? 1 : 0);
  // Counted the way the testcases are written (one rule, caseKind), so the totals always
  // match what the file holds.
  const kinds = report.checks.map((c) => caseKind(c, mode));
  const failures = kinds.filter((k) => k !== 'passed' && k !== 'skipped').length + (sweep.failed ? 1 : 0);
  const skipped = kinds.filter((k) => k === 'skipped').length + (sweep.skipped ? 1 : 0);
  const counts = { tests, failures, errors: 0, skipped, time: seconds(report.durationMs) };
  const t = report.target;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'pooltest', ...counts })}>`,
    `  <testsuite${attributes({ name: `pooltest ${targetText(t)}`, ...counts, timestamp: report.startedAt.replace(/\.\d+Z$/, 'Z'), hostname: t.host })}>`,
    properties(suiteProperties(report), '    '),
    ...cases,
    ...(sweep.xml ? [sweep.xml] : []),
    '  </testsuite>',
    '</testsuites>',
  ];
  // The report never holds a password; this is the second line of defence for text that
  // came from servers (an error quoting a connection string, say).
  return redactUrl(lines.join('\n')) + '\n';
}

function suiteProperties(r: Report): Array<[string, string | number | null]> {
  const d = r.discovery;
  return [
    ['pooltest.version', r.tool.version],
    ['pooltest.runId', r.runId],
    ['pooltest.schemaVersion', r.schemaVersion],
    ['target', targetText(r.target)],
    ['direct', r.direct ? targetText(r.direct) : null],
    ['profile', r.profile?.name ?? null],
    ['profile.ref', r.profile?.ref ?? null],
    ['discovery.mode', d.mode],
    ['discovery.poolSize', d.poolSize],
    ['discovery.poolCounted', d.poolSize !== null && d.poolCount ? poolText(d) : null],
    ['discovery.pooler', poolerName(d.pooler)],
    ['discovery.serverVersion', d.serverVersion],
    ['discovery.wireFindings', d.wireFindings ? d.wireFindings.map(describeWireFinding).join(' | ') : null],
    ['sweep', r.sweep ? sweepText(r.sweep).text.replace(/^Sweep: /, '') : null],
    ['interrupted', r.summary.interrupted ? 'true' : null],
    // Every verdict counted, and the outcomes that break an application: JUnit's own counts
    // have no word for an observation, nor for a pass that is an expected break.
    ['summary', reportCounts(r)],
    ['summary.breaking', summaryCounts(r.checks).breaking],
    ['failOnBreaks', r.summary.failOnBreaks === true ? 'true' : null],
  ];
}

interface CaseMode {
  strict: boolean;
  failOnBreaks: boolean;
}

type CaseKind = 'passed' | 'skipped' | 'failure' | 'inconclusive' | 'breaks';

/** What a check's testcase holds: nothing (passed), `<skipped>`, or a failure of some type. */
function caseKind(c: CheckResult, mode: CaseMode): CaseKind {
  switch (c.verdict) {
    case 'fail':
      return 'failure';
    case 'inconclusive':
      return mode.strict ? 'inconclusive' : 'skipped';
    case 'skipped':
      return 'skipped';
    default:
      // pass or observed: a check that ran and concluded, unless its outcome breaks and
      // --fail-on-breaks asks for that to fail the run.
      return mode.failOnBreaks && observedReading(c) === 'breaks' ? 'breaks' : 'passed';
  }
}

function testcase(c: CheckResult, mode: CaseMode): string {
  const area = c.id.split('/')[0] ?? c.id;
  const open = `    <testcase${attributes({ classname: `pooltest.${area}`, name: c.id, time: seconds(c.durationMs) })}>`;
  const body = [properties(checkProperties(c), '      '), verdictElement(c, caseKind(c, mode)), systemOut(c)].filter(
    (x) => x !== '',
  );
  return [open, ...body, '    </testcase>'].join('\n');
}

function checkProperties(c: CheckResult): Array<[string, string | number | null]> {
  return [
    ['title', c.title],
    ['severity', c.severity],
    ['outcome', c.outcome],
    ['expected', c.expected],
    ['expectedRef', c.expectedRef],
    ['verdict', c.verdict],
    // The verdict in the words of the other renderers: `observed: BREAKS (security)`.
    ['verdictText', verdictPhrase(c)],
    // Whether the outcome breaks an application written for a direct connection, whatever the verdict.
    [
      'breaks',
      c.outcome === null
        ? null
        : observedReading(c) === 'unknown'
          ? 'unknown'
          : String(observedReading(c) === 'breaks'),
    ],
    ['reason', c.reason],
    ['evidence', c.evidence],
    ['advice', c.advice],
    ['statements', c.statements],
    ['cleanup', `${c.cleanup.ok ? 'ok' : 'FAILED'}: ${c.cleanup.detail}`],
    ...Object.entries(c.facts).map(([k, v]): [string, string | null] => [`fact.${k}`, v === null ? 'null' : String(v)]),
  ];
}

function verdictElement(c: CheckResult, kind: CaseKind): string {
  switch (kind) {
    case 'failure': {
      const message = `observed "${c.outcome}", expected "${c.expected}"`;
      const text = [
        `${c.id}: ${message} (${c.expectedRef ?? 'no reference'})`,
        `reason: ${c.reason}`,
        `evidence: ${c.evidence}`,
        ...(c.advice ? [`advice: ${c.advice}`] : []),
      ].join('\n');
      return `      <failure${attributes({ type: 'unexpected-outcome', message })}>${escapeXml(text)}</failure>`;
    }
    case 'breaks': {
      const message = `${c.outcome} breaks an application written for a direct connection (${c.severity})${c.verdict === 'pass' ? ', as expected' : ''}`;
      const text = [
        `${c.id}: ${message}; --fail-on-breaks makes that a failure`,
        `evidence: ${c.evidence}`,
        ...(c.advice ? [`advice: ${c.advice}`] : []),
      ].join('\n');
      return `      <failure${attributes({ type: 'breaks-application', message })}>${escapeXml(text)}</failure>`;
    }
    case 'inconclusive': {
      const text = [
        `${c.id}: inconclusive under --strict: nothing was proven`,
        `reason: ${c.reason}`,
        `evidence: ${c.evidence}`,
      ].join('\n');
      return `      <failure${attributes({ type: 'inconclusive', message: `inconclusive: ${c.reason}` })}>${escapeXml(text)}</failure>`;
    }
    case 'skipped':
      return `      <skipped${attributes({ message: `${c.verdict}: ${c.reason}` })}/>`;
    default:
      return '';
  }
}

/**
 * What CI shows for the check: first what was seen (`observed: leaked - BREAKS an application
 * written for a direct connection (security); nothing was asserted`), then the advice, the
 * evidence and the recorded steps.
 */
function systemOut(c: CheckResult): string {
  if (c.steps.length === 0 && c.verdict !== 'observed') return '';
  const text = [
    `${c.id}: ${seenLine(c)}`,
    ...(c.advice && observedReading(c) === 'breaks' ? [`advice: ${c.advice}`] : []),
    `evidence: ${c.evidence}`,
    ...c.steps.map(stepLine),
  ].join('\n');
  return `      <system-out>${escapeXml(text)}</system-out>`;
}

/** The outcome and what it does to an application, in the words of the verdict. */
function seenLine(c: CheckResult): string {
  if (c.outcome === null) return `no outcome (${c.verdict})`;
  const reading = observedReading(c);
  const effect =
    reading === 'breaks'
      ? `BREAKS an application written for a direct connection (${c.severity})`
      : reading === 'fine'
        ? 'no break for an application written for a direct connection'
        : 'whether it breaks an application is unknown';
  const asserted =
    c.verdict === 'observed' ? 'nothing was asserted' : `${c.verdict} against the expected ${c.expected ?? '-'}`;
  return `${c.verdict === 'observed' ? 'observed' : 'outcome'}: ${c.outcome} - ${effect}; ${asserted}`;
}

/** The sweep's testcase (none when no sweep ran and nothing asks for one) and whether it fails. */
function sweepCase(r: Report, strict: boolean): { xml: string | null; failed: boolean; skipped?: boolean } {
  const unfinished =
    strict &&
    sweepUnfinished(
      r.sweep,
      r.checks.some((c) => c.steps.length > 0),
    );
  const open = `    <testcase${attributes({ classname: 'pooltest', name: 'pooltest/sweep', time: 0 })}>`;
  if (!r.sweep) {
    if (!unfinished) return { xml: null, failed: false };
    const failure = `      <failure${attributes({ type: 'sweep-unfinished', message: 'no sweep result: the target is not proven clean' })}/>`;
    return { xml: `${open}\n${failure}\n    </testcase>`, failed: true };
  }
  const s = r.sweep;
  const state = sweepState(s);
  const props = properties(
    [
      ['clean', String(s.clean)],
      ['state', state],
      ['via', s.via.join(', ')],
      ['backendsVisited', s.backendsVisited.join(', ')],
    ],
    '      ',
  );
  let failure = '';
  if (state === 'dirty')
    failure = `\n      <failure${attributes({ type: 'leftover-state', message: 'pooltest left state behind' })}>${escapeXml(s.leftovers.join('\n'))}</failure>`;
  else if (unfinished)
    failure = `\n      <failure${attributes({ type: 'sweep-unfinished', message: 'the sweep could not finish: the target is not proven clean' })}>${escapeXml(s.reason ?? s.leftovers.join('\n'))}</failure>`;
  // Could not look is no failure of the run without --strict: a skipped case with the reason, so CI shows it.
  else if (state === 'unknown')
    failure = `\n      <skipped${attributes({ message: `the sweep could not look for leftovers: ${s.reason ?? 'no reason recorded'}` })}/>`;
  return {
    xml: `${open}\n${props}${failure}\n    </testcase>`,
    failed: state === 'dirty' || (unfinished && state !== 'clean'),
    skipped: state === 'unknown' && !unfinished,
  };
}

function properties(pairs: Array<[string, string | number | null]>, indent: string): string {
  const present = pairs.filter((p): p is [string, string | number] => p[1] !== null);
  if (present.length === 0) return '';
  const rows = present.map(([name, value]) => `${indent}  <property${attributes({ name, value })}/>`);
  return [`${indent}<properties>`, ...rows, `${indent}</properties>`].join('\n');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}
