/**
 * Reading a report someone handed over: a known check's outcome outside its declared labels is
 * refused with REPORT_INVALID naming the check and the value (printable), a newer pooltest's
 * check still loads, and a file that is not JSON is refused without echoing its escapes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { readReport } from '../../cli/diff-command.js';
import type { Report } from '../../engine/types.js';
import { renderDiff } from '../../reporters/diff-terminal.js';
import { diffReports } from '../../reporters/report-diff.js';
import { isPooltestError } from '../../engine/record/errors.js';
import { CONTROL, ESCAPES, pgbouncerReport } from '../reporters/samples.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, body);
  return file;
}

function readError(file: string): string {
  try {
    readReport(file);
  } catch (err) {
    if (isPooltestError(err)) return `${err.code}: ${err.message}`;
    throw err;
  }
  throw new Error(`${file} was read`);
}

describe('reading a hostile report', () => {
  test("a known check's outcome outside its vocabulary is refused with REPORT_INVALID, naming check and value", () => {
    const r = pgbouncerReport();
    const id = r.checks.find((c) => c.outcome !== null)!.id;
    r.checks.find((c) => c.id === id)!.outcome = ESCAPES;
    const message = readError(write('bad-outcome.json', JSON.stringify(r)));
    expect(message).toMatch(/^REPORT_INVALID: /);
    expect(message).toContain(id);
    expect(message).toContain('PWNED');
    expect(message).toMatch(/not one of its outcomes/);
    expect(message).not.toMatch(CONTROL);
  });

  test('an outcome that is not a string is refused too', () => {
    const r = pgbouncerReport() as unknown as { checks: Array<{ outcome: unknown }> };
    r.checks[0]!.outcome = { a: 1 };
    expect(readError(write('object-outcome.json', JSON.stringify(r)))).toMatch(/^REPORT_INVALID: .*outcome/);
  });

  test("a newer pooltest's check id, with an outcome this version does not know, still loads", () => {
    const r = pgbouncerReport();
    r.checks.push({ ...r.checks[0]!, id: 'future/new-check', outcome: 'brand-new-label' });
    const read = readReport(write('newer.json', JSON.stringify(r)));
    expect(read.checks.at(-1)).toMatchObject({ id: 'future/new-check', outcome: 'brand-new-label' });
  });

  test("a file that is not JSON is refused without echoing the file's escapes", () => {
    const message = readError(write('not-json.json', `{"a": ${ESCAPES}}`));
    expect(message).toMatch(/^REPORT_INVALID: cannot read a pooltest report/);
    expect(message).not.toMatch(CONTROL);
  });

  test('a check listed twice, or a pooler that is not an object with a name, is refused', () => {
    const twice = pgbouncerReport();
    twice.checks.push({ ...twice.checks[0]!, outcome: twice.checks[0]!.outcome });
    expect(readError(write('twice.json', JSON.stringify(twice)))).toMatch(/^REPORT_INVALID: .*appears twice/);
    const pooler = pgbouncerReport() as unknown as { discovery: { pooler: unknown } };
    pooler.discovery.pooler = { name: { x: 1 } };
    expect(readError(write('pooler.json', JSON.stringify(pooler)))).toMatch(/^REPORT_INVALID: .*discovery\.pooler is/);
    const severity = pgbouncerReport() as unknown as { checks: Array<{ severity: unknown }> };
    severity.checks[0]!.severity = { x: 1 };
    expect(readError(write('severity.json', JSON.stringify(severity)))).toMatch(/^REPORT_INVALID: .*severity/);
  });

  test("a severity this version does not know keeps its rows in the diff's table, in a group of its own", () => {
    const old = pgbouncerReport();
    const next = pgbouncerReport() as unknown as Report;
    const changed = next.checks.find((c) => c.outcome !== null)!;
    (changed as { severity: string }).severity = 'performance';
    const text = renderDiff(diffReports(old, next), { color: false, width: 120, quiet: false });
    expect(text).toContain('performance (1)');
    expect(text).toContain(changed.id);
  });
});
