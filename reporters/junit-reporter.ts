/**
 * The JUnit XML report (`--junit FILE`), for CI systems that show test results: GitHub Actions
 * junit reporters, GitLab's test reports, Jenkins. One testcase per check, named by its stable
 * id and classed by area, so CI history follows a check across runs. A failed expectation is a
 * `<failure>`; inconclusive and skipped checks are `<skipped>` with the reason (pooltest could
 * not force the situation, so it does not claim a pass). Outcome, facts and evidence are
 * properties; the recorded steps go to `<system-out>`, the one place every CI system displays.
 * A final `pooltest/sweep` testcase fails when the run left state behind.
 */
import { sweepState, type CheckResult, type Report } from '../engine/types.js';
import { sweepText } from './sweep-text.js';
import { redactUrl } from '../engine/target.js';
import { poolerName, targetText } from './report-text.js';
import { stepLine } from './step-text.js';
import { attributes, escapeXml } from './xml.js';

/** Renders `report` as a JUnit XML document. */
export function renderJunit(report: Report): string {
  const cases = report.checks.map(testcase);
  const sweep = sweepCase(report);
  const tests = cases.length + (sweep ? 1 : 0);
  // Counted from the testcases themselves, so the totals always match what the file holds.
  const failures = report.checks.filter((c) => c.verdict === 'fail').length + (report.sweep && sweepState(report.sweep) === 'dirty' ? 1 : 0);
  const skipped = report.checks.filter((c) => c.verdict === 'inconclusive' || c.verdict === 'skipped').length + (report.sweep && sweepState(report.sweep) === 'unknown' ? 1 : 0);
  const counts = { tests, failures, errors: 0, skipped, time: seconds(report.durationMs) };
  const t = report.target;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: 'pooltest', ...counts })}>`,
    `  <testsuite${attributes({ name: `pooltest ${targetText(t)}`, ...counts, timestamp: report.startedAt.replace(/\.\d+Z$/, 'Z'), hostname: t.host })}>`,
    properties(suiteProperties(report), '    '),
    ...cases,
    ...(sweep ? [sweep] : []),
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
    ['discovery.pooler', poolerName(d.pooler)],
    ['discovery.serverVersion', d.serverVersion],
    ['sweep', r.sweep ? sweepText(r.sweep).text.replace(/^Sweep: /, '') : null],
    ['interrupted', r.summary.interrupted ? 'true' : null],
  ];
}

function testcase(c: CheckResult): string {
  const area = c.id.split('/')[0] ?? c.id;
  const open = `    <testcase${attributes({ classname: `pooltest.${area}`, name: c.id, time: seconds(c.durationMs) })}>`;
  const body = [properties(checkProperties(c), '      '), verdictElement(c), systemOut(c)].filter((x) => x !== '');
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
    ['reason', c.reason],
    ['evidence', c.evidence],
    ['advice', c.advice],
    ['statements', c.statements],
    ['cleanup', `${c.cleanup.ok ? 'ok' : 'FAILED'}: ${c.cleanup.detail}`],
    ...Object.entries(c.facts).map(([k, v]): [string, string | null] => [`fact.${k}`, v === null ? 'null' : String(v)]),
  ];
}

function verdictElement(c: CheckResult): string {
  switch (c.verdict) {
    case 'fail': {
      const message = `observed "${c.outcome}", expected "${c.expected}"`;
      const text = [`${c.id}: ${message} (${c.expectedRef ?? 'no reference'})`, `reason: ${c.reason}`, `evidence: ${c.evidence}`, ...(c.advice ? [`advice: ${c.advice}`] : [])].join('\n');
      return `      <failure${attributes({ type: 'unexpected-outcome', message })}>${escapeXml(text)}</failure>`;
    }
    case 'inconclusive':
      return `      <skipped${attributes({ message: `inconclusive: ${c.reason}` })}/>`;
    case 'skipped':
      return `      <skipped${attributes({ message: `skipped: ${c.reason}` })}/>`;
    default:
      return '';
  }
}

function systemOut(c: CheckResult): string {
  if (c.steps.length === 0) return '';
  const text = [`${c.id}: ${c.outcome ?? 'no outcome'} (${c.verdict})`, `evidence: ${c.evidence}`, ...c.steps.map(stepLine)].join('\n');
  return `      <system-out>${escapeXml(text)}</system-out>`;
}

function sweepCase(r: Report): string | null {
  if (!r.sweep) return null;
  const s = r.sweep;
  const state = sweepState(s);
  const props = properties([['clean', String(s.clean)], ['state', state], ['via', s.via.join(', ')], ['backendsVisited', s.backendsVisited.join(', ')]], '      ');
  // Could not look is no failure of the run: a skipped case with the reason, so CI shows it.
  const failure = state === 'clean' ? ''
    : state === 'unknown' ? `\n      <skipped${attributes({ message: `the sweep could not look for leftovers: ${s.reason ?? 'no reason recorded'}` })}/>`
    : `\n      <failure${attributes({ type: 'leftover-state', message: 'pooltest left state behind' })}>${escapeXml(s.leftovers.join('\n'))}</failure>`;
  return `    <testcase${attributes({ classname: 'pooltest', name: 'pooltest/sweep', time: 0 })}>\n${props}${failure}\n    </testcase>`;
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
