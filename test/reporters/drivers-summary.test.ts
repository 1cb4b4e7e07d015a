/**
 * Regression (issue 40, re-tested on `pooltest drivers`): its terminal, Markdown and HTML said
 * only "89 results in 285.3 s", and its JUnit passed every failed, stalled or split result that
 * had no expectation with nothing on the testcase, so a run without --expect read as a column of
 * green and one with the pgbouncer-transaction profile as 79 passes. Every renderer now says how
 * many results break an application next to the verdicts, counted once (drivers-summary.ts), and
 * JUnit is read here as a CI screen reads it (fast-xml-parser): the counts of the suites, and
 * each testcase's properties and output.
 */
import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, test } from 'vitest';
import { DRIVER_OUTCOMES } from '../../drivers/judge.js';
import type { DriversReport } from '../../drivers/run-drivers.js';
import { renderDriversHtml } from '../../reporters/drivers-html.js';
import { renderDriversJunit } from '../../reporters/drivers-junit.js';
import { driversSummaryLine } from '../../reporters/drivers-summary.js';
import { renderDriversMarkdown, renderDriversTerminal } from '../../reporters/drivers-text.js';

const recorded = (): DriversReport =>
  JSON.parse(
    readFileSync(new URL('../recorded/drivers-pgbouncer-transaction.json', import.meta.url), 'utf8'),
  ) as DriversReport;

/** The same run read without any expectation: every result an observation. */
function observedOnly(): DriversReport {
  const report = recorded();
  for (const r of report.results) {
    r.expected = null;
    if (r.verdict !== 'inconclusive') r.verdict = 'observed';
  }
  return report;
}

const breaksOf = (r: DriversReport) =>
  r.results.filter((x) => x.outcome !== null && DRIVER_OUTCOMES[x.outcome]?.breaks === true);

interface Case {
  name: string;
  classname: string;
  failure?: unknown;
  skipped?: unknown;
  properties: { property: Array<{ name: string; value: string }> };
  'system-out': string;
}
interface Suite {
  tests: string;
  failures: string;
  skipped: string;
  properties: { property: Array<{ name: string; value: string }> };
  testcase: Case[];
}

function ciScreen(xml: string): { suites: Suite[]; cases: Case[] } {
  const doc = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  }).parse(xml) as { testsuites: { testsuite: Suite[] } };
  const suites = doc.testsuites.testsuite;
  return { suites, cases: suites.flatMap((s) => s.testcase) };
}
const prop = (c: { properties: Case['properties'] }, name: string) =>
  c.properties.property.find((p) => p.name === name)?.value;

describe.each([
  ['with the pgbouncer-transaction expectations', recorded],
  ['without an expectation', observedOnly],
])('%s', (_, load) => {
  const report = load();
  const breaking = breaksOf(report).length;

  test('the recorded run has breaking results (control: there is something to say)', () => {
    expect(breaking).toBeGreaterThan(5);
    expect(report.results.length).toBeGreaterThan(breaking);
  });

  test('terminal, Markdown and HTML say how many results break an application, next to the verdicts', () => {
    const line = driversSummaryLine(report);
    expect(line).toMatch(new RegExp(`^${report.results.length} results: ${breaking} outcomes break an application; `));
    expect(line).toMatch(/\d+ pass.*, \d+ fail, \d+ observed/);
    expect(renderDriversTerminal(report)).toContain(line);
    expect(renderDriversMarkdown(report)).toContain(`**${line}.**`);
    expect(renderDriversHtml(report)).toContain(line.replace(/'/g, '&#39;'));
  });

  test('JUnit as a CI screen reads it: each breaking result says so on its testcase, none is skipped for it', () => {
    const { suites, cases } = ciScreen(renderDriversJunit(report));
    expect(cases).toHaveLength(report.results.length);
    for (const r of report.results) {
      const c = cases.find((x) => x.classname === `drivers.${r.driver}` && x.name === `${r.scenario}@${r.config}`)!;
      const breaks = r.outcome !== null && DRIVER_OUTCOMES[r.outcome]?.breaks === true;
      expect(prop(c, 'breaks'), r.id).toBe(String(breaks));
      expect(prop(c, 'outcome'), r.id).toBe(r.outcome ?? 'inconclusive');
      expect(c['system-out'].includes('BREAKS an application'), r.id).toBe(breaks);
      // Skipped only for an inconclusive result, failed only for a missed expectation.
      expect(c.skipped !== undefined, r.id).toBe(r.verdict === 'inconclusive');
      expect(c.failure !== undefined, r.id).toBe(r.verdict === 'fail');
    }
    const summed = suites.reduce((n, s) => n + Number(prop(s, 'breaking')), 0);
    expect(summed).toBe(breaking);
    for (const s of suites) expect(prop(s, 'summary')).toBe(driversSummaryLine(report));
  });
});
