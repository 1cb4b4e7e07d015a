/**
 * The drivers report as JUnit XML: one testsuite per driver, one testcase per configuration and
 * scenario. A result that misses its expectation is a failure; inconclusive is skipped with its
 * reason; an observation without expectation passes (as the checks' JUnit does).
 */
import type { DriversReport } from '../drivers/run-drivers.js';
import { attributes, escapeXml } from './xml.js';

export function renderDriversJunit(report: DriversReport): string {
  const drivers = [...new Set(report.results.map((r) => r.driver))];
  const suites = drivers.map((driver) => {
    const results = report.results.filter((r) => r.driver === driver);
    const cases = results.map((r) => {
      const head = `    <testcase${attributes({ classname: `drivers.${driver}`, name: `${r.scenario}@${r.config}` })}>`;
      const body =
        r.verdict === 'fail'
          ? `\n      <failure${attributes({ message: `expected ${r.expected ?? '?'}, observed ${r.outcome ?? 'inconclusive'}` })}>${escapeXml(r.reason)}</failure>\n    `
          : r.verdict === 'inconclusive'
            ? `\n      <skipped${attributes({ message: r.reason })}/>\n    `
            : '';
      return `${head}${body}</testcase>`;
    });
    const failures = results.filter((r) => r.verdict === 'fail').length;
    const skipped = results.filter((r) => r.verdict === 'inconclusive').length;
    return `  <testsuite${attributes({ name: `drivers/${driver}`, tests: results.length, failures, skipped })}>\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attributes({ name: 'pooltest drivers' })}>\n${suites.join('\n')}\n</testsuites>\n`;
}
