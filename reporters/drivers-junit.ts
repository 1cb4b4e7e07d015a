/**
 * The drivers report as JUnit XML: one testsuite per driver, one testcase per configuration and
 * scenario. A result that misses its expectation is a failure; inconclusive is skipped with its
 * reason; an observation without expectation passes (as the checks' JUnit does). Each testcase
 * carries its outcome, verdict and whether that outcome breaks an application as properties, and
 * each testsuite the drivers' summary line, so that a CI screen reading a run without --expect
 * sees what breaks instead of a column of green.
 */
import type { DriverResult, DriversReport } from '../drivers/run-drivers.js';
import { driverOutcomeBreaks, driversSummaryLine } from './drivers-summary.js';
import { attributes, escapeXml } from './xml.js';

function property(name: string, value: string): string {
  return `<property${attributes({ name, value })}/>`;
}

function properties(indent: string, items: Array<[string, string]>): string {
  return `${indent}<properties>\n${items.map(([n, v]) => `${indent}  ${property(n, v)}`).join('\n')}\n${indent}</properties>`;
}

function testcase(driver: string, r: DriverResult): string {
  const head = `    <testcase${attributes({ classname: `drivers.${driver}`, name: `${r.scenario}@${r.config}` })}>`;
  const props = properties('      ', [
    ['outcome', r.outcome ?? 'inconclusive'],
    ['expected', r.expected ?? ''],
    ['verdict', r.verdict],
    ['breaks', String(driverOutcomeBreaks(r.outcome))],
  ]);
  const verdict =
    r.verdict === 'fail'
      ? `\n      <failure${attributes({ message: `expected ${r.expected ?? '?'}, observed ${r.outcome ?? 'inconclusive'}` })}>${escapeXml(r.reason)}</failure>`
      : r.verdict === 'inconclusive'
        ? `\n      <skipped${attributes({ message: r.reason })}/>`
        : '';
  // What a CI screen shows under a passed testcase: the outcome, and whether it breaks.
  const breaks = driverOutcomeBreaks(r.outcome) ? ' - BREAKS an application written for a direct connection' : '';
  const out = `${r.id}: ${r.outcome ?? 'inconclusive'}${breaks}: ${r.reason}${r.advice ? `\nadvice: ${r.advice}` : ''}`;
  return `${head}\n${props}${verdict}\n      <system-out>${escapeXml(out)}</system-out>\n    </testcase>`;
}

export function renderDriversJunit(report: DriversReport): string {
  const drivers = [...new Set(report.results.map((r) => r.driver))];
  const summary = driversSummaryLine(report);
  const suites = drivers.map((driver) => {
    const results = report.results.filter((r) => r.driver === driver);
    const failures = results.filter((r) => r.verdict === 'fail').length;
    const skipped = results.filter((r) => r.verdict === 'inconclusive').length;
    const props = properties('    ', [
      ['summary', summary],
      ['breaking', String(results.filter((r) => driverOutcomeBreaks(r.outcome)).length)],
    ]);
    return `  <testsuite${attributes({ name: `drivers/${driver}`, tests: results.length, failures, skipped })}>\n${props}\n${results.map((r) => testcase(driver, r)).join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attributes({ name: 'pooltest drivers' })}>\n${suites.join('\n')}\n</testsuites>\n`;
}
