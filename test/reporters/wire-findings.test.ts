/**
 * A wire finding of discovery (a malformed reply to an optional probe) is shown in every report
 * format, with its evidence, and the report with it still matches the published schema; a
 * report without one shows none. Recorded reports, no database.
 */
import { describe, expect, test } from 'vitest';
import type { Report, WireFinding } from '../../engine/types.js';
import { renderHtml } from '../../reporters/html-reporter.js';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { renderMarkdown } from '../../reporters/markdown-reporter.js';
import { renderReport } from '../../reporters/terminal-reporter.js';
import { reportSchemaErrors } from '../support/report-schema.js';
import { pgbouncerReport } from './samples.js';

/** What pgagroal 1.6.0 sends after refusing the admin-console login. */
const FINDING: WireFinding = {
  probe: 'discovery.identify',
  session: 'admin',
  connection: "the login to PgBouncer's admin console (database pgbouncer), which only identifies the pooler",
  direction: 'backend',
  type: '\\x00',
  name: 'unknown message',
  declaredLength: null,
  actualLength: null,
  offset: 104,
  hex: '00',
  reason: '0x00 is not a backend message type',
  consequence: 'the pooler is not identified by its admin console; discovery went on without it',
};

function withFinding(): Report {
  const r = pgbouncerReport();
  r.discovery.wireFindings = [FINDING];
  return r;
}

describe('a wire finding in each report format', () => {
  const evidence = /admin discovery\.identify .*unknown message .*\\x00.*bytes at stream offset 104: 00/;

  test('the report with a finding matches the schema', () => {
    expect(reportSchemaErrors(JSON.parse(JSON.stringify(withFinding())))).toEqual([]);
  });

  test('terminal, without --verbose', () => {
    const out = renderReport(withFinding(), { color: false, width: 400 });
    expect(out).toMatch(new RegExp(`wire finding: ${evidence.source}`));
    expect(renderReport(pgbouncerReport(), { color: false, width: 400 })).not.toMatch(/wire finding/);
  });

  test('Markdown, HTML and a JUnit property', () => {
    expect(renderMarkdown(withFinding())).toMatch(/> Wire finding: admin discovery\.identify .*offset 104: 00/);
    expect(renderHtml(withFinding())).toMatch(/<dt>wire finding<\/dt><dd>admin discovery\.identify .*offset 104: 00/);
    expect(renderJunit(withFinding())).toMatch(/name="discovery\.wireFindings" value="admin discovery\.identify .*00;/);
    for (const text of [renderMarkdown(pgbouncerReport()), renderJunit(pgbouncerReport())])
      expect(text).not.toMatch(/[Ww]ire finding|wireFindings/);
  });
});
