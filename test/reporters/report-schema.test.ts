/**
 * schema/report.schema.json describes the Report exactly: real reports validate, and the
 * schema rejects what a report must never be (an unknown field, a missing one, a verdict
 * outside the vocabulary, a password-bearing target).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { REPORT_SCHEMA_VERSION, type Report } from '../../engine/types.js';
import { reportSchemaErrors, SCHEMA_FILE } from '../support/report-schema.js';
import { directReport, pgbouncerReport, troubledReport } from './samples.js';

const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as {
  $schema: string;
  required: string[];
  properties: { schemaVersion: { const: number } };
};

describe('the report JSON Schema', () => {
  test('is draft 2020-12 and carries the current schema version', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.properties.schemaVersion.const).toBe(REPORT_SCHEMA_VERSION);
  });

  test.each([
    ['PgBouncer, transaction pooling', pgbouncerReport],
    ['PostgreSQL direct', directReport],
    ['failures, inconclusives, a dirty sweep', troubledReport],
  ])('accepts a real report: %s', (_name, make) => {
    expect(reportSchemaErrors(make())).toEqual([]);
  });

  test('requires every top-level field a report has, and no other', () => {
    expect([...schema.required].sort()).toEqual(Object.keys(pgbouncerReport()).sort());
  });

  const broken: Array<[string, (r: Report) => void, string]> = [
    ['an unknown field', (r) => Object.assign(r, { extra: 1 }), 'must NOT have additional properties'],
    [
      'a password in the target',
      (r) => Object.assign(r.target, { password: 'x' }),
      'must NOT have additional properties',
    ],
    [
      'a missing check field',
      (r) => delete (r.checks[0] as Partial<Report['checks'][0]>).advice,
      "must have required property 'advice'",
    ],
    [
      'a verdict outside the vocabulary',
      (r) => Object.assign(r.checks[0]!, { verdict: 'ok' }),
      'must be equal to one of the allowed values',
    ],
    [
      'a check id that is not area/behaviour',
      (r) => Object.assign(r.checks[0]!, { id: 'set-leak' }),
      'must match pattern',
    ],
    ['another schema version', (r) => Object.assign(r, { schemaVersion: 1 }), 'must be equal to constant'],
    [
      'a fact that is an object',
      (r) => Object.assign(r.checks[0]!.facts, { nested: { a: 1 } }),
      'must be boolean,number,string,null',
    ],
    [
      'a start time that is not a date-time',
      (r) => Object.assign(r, { startedAt: 'yesterday' }),
      'must match format "date-time"',
    ],
  ];
  test.each(broken)('rejects %s', (_name, spoil, message) => {
    const r = pgbouncerReport();
    spoil(r);
    expect(reportSchemaErrors(r).join('\n')).toContain(message);
  });
});
