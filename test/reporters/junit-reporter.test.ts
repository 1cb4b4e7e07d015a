/**
 * The JUnit report is well-formed XML whatever the servers said, and carries what CI systems
 * show: one testcase per check with its id, failure for a failed expectation, skipped (with
 * the reason) for inconclusive and skipped checks, outcome/facts/evidence as properties, and a
 * sweep testcase that fails when the run left state behind.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, test } from 'vitest';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { escapeXml } from '../../reporters/xml.js';
import { HOSTILE, pgbouncerReport, troubledReport } from './samples.js';

interface Property {
  name: string;
  value: string;
}
interface TestCase {
  classname: string;
  name: string;
  time: string;
  properties: { property: Property[] };
  failure?: { message: string; type: string; '#text': string };
  skipped?: { message: string };
  'system-out'?: string;
}
interface Parsed {
  testsuites: {
    tests: string;
    failures: string;
    skipped: string;
    testsuite: {
      tests: string;
      failures: string;
      skipped: string;
      errors: string;
      properties: { property: Property[] };
      testcase: TestCase[];
    };
  };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  isArray: (name) => ['testcase', 'property'].includes(name),
});

function parse(xml: string): Parsed {
  expect(XMLValidator.validate(xml)).toBe(true);
  return parser.parse(xml) as Parsed;
}

const prop = (c: TestCase, name: string): string | undefined =>
  c.properties.property.find((p) => p.name === name)?.value;

describe('JUnit report', () => {
  test('a healthy run: one passing testcase per check, named by id and classed by area, plus the sweep', () => {
    const report = pgbouncerReport();
    const suite = parse(renderJunit(report)).testsuites.testsuite;
    const cases = suite.testcase;
    expect(cases.map((c) => c.name)).toEqual([...report.checks.map((c) => c.id), 'pooltest/sweep']);
    expect(cases[0]).toMatchObject({ classname: 'pooltest.session', name: 'session/set-leak' });
    expect(cases.some((c) => c.failure || c.skipped)).toBe(false);
    expect(suite).toMatchObject({ tests: String(report.checks.length + 1), failures: '0', skipped: '0', errors: '0' });
    expect(suite.properties.property).toContainEqual({ name: 'profile', value: 'pgbouncer-transaction' });
    expect(suite.properties.property).toContainEqual({ name: 'discovery.mode', value: 'transaction' });
  });

  test('outcome, expectation, evidence and facts are properties; steps are in system-out', () => {
    const c = parse(renderJunit(pgbouncerReport())).testsuites.testsuite.testcase[0]!;
    expect(prop(c, 'outcome')).toBe('leaked');
    expect(prop(c, 'expected')).toBe('leaked');
    expect(prop(c, 'verdict')).toBe('pass');
    expect(prop(c, 'evidence')).toContain("A's old backend");
    expect(prop(c, 'fact.otherSawState')).toBe('true');
    expect(c['system-out']).toContain('A.create');
  });

  test('failures, inconclusives and skips map to failure and skipped, with counts to match', () => {
    const report = troubledReport();
    const parsed = parse(renderJunit(report));
    const byName = new Map(parsed.testsuites.testsuite.testcase.map((c) => [c.name, c]));
    expect(byName.get('session/set-leak')?.failure?.message).toBe('observed "leaked", expected "session"');
    const inconclusive = report.checks.find((c) => c.id === 'temp/temp-table')!;
    expect(inconclusive.reason).toMatch(/^steering failed: the observer never landed on backend \d+$/);
    expect(byName.get('temp/temp-table')?.skipped?.message).toBe(`inconclusive: ${inconclusive.reason}`);
    expect(byName.get('notify/listen')?.skipped?.message).toBe('skipped: needs --direct');
    expect(byName.get('pooltest/sweep')?.failure?.['#text']).toContain('statement_timeout = 3438007ms');
    expect(parsed.testsuites).toMatchObject({ tests: String(report.checks.length + 1), failures: '2', skipped: '2' });
  });

  test('hostile text stays well-formed, forbidden characters are replaced, and URL passwords are redacted', () => {
    const xml = renderJunit(troubledReport());
    expect(xml).not.toContain('\u0001');
    expect(xml).not.toContain('S3cret');
    const c = parse(xml).testsuites.testsuite.testcase.find((x) => x.name === 'session/set-leak')!;
    expect(c.failure?.['#text']).toContain('a <b> & "c"');
  });

  test('escapeXml leaves nothing that could end an element or attribute', () => {
    expect(escapeXml(HOSTILE)).not.toMatch(/[<>"']|&(?!(amp|lt|gt|quot|apos);)/);
    expect(escapeXml('\uD800 lone surrogate')).toBe('\uFFFD lone surrogate');
  });
});
