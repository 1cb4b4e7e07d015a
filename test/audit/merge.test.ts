/**
 * `pooltest audit --merge`: the reports of a log's two halves merge into the report of the
 * whole log. Byte for byte, once the fields that must differ are set aside: `generatedAt` and
 * `summary.durationMs` (timing), `summary.parsedTexts` (a text seen in both halves is parsed
 * in both runs), `inputs` (two files, not one) and the sources (`half2.log:N` is
 * `whole.log:N + lines of the first half`), which are mapped before comparing.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { MULTI_LINE, REPEATED, inlined } from '../../bench/audit-log-mix.js';
import { runAudit, useScratchDir } from './audit-helpers.js';

const scratch = useScratchDir('merge');

const P = (i: number): string =>
  `2026-01-01 10:00:${String(i % 60).padStart(2, '0')}.000 UTC [${100 + (i % 7)}] app@db `;

/** Log entries (each a list of lines): findings, cleanups, unparsed texts, named statements. */
function entries(): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < 600; i++) {
    const text = i % 10 === 0 ? inlined(i) : REPEATED[i % REPEATED.length]!;
    out.push([`${P(i)}LOG:  statement: ${text}`]);
    if (i % 37 === 0) out.push([`${P(i)}LOG:  statement: ${MULTI_LINE.replace(/\n/g, '\n\t')}`]);
    if (i % 41 === 0) out.push([`${P(i)}LOG:  statement: SELEC ${i % 3}`]);
    if (i % 53 === 0) out.push([`${P(i)}LOG:  execute S_${i % 4}: SELECT pg_advisory_lock($1)`]);
    if (i % 59 === 0) out.push([`${P(i)}LOG:  statement: SET search_path = tenant_${i % 5}`]);
    if (i % 61 === 0) out.push([`${P(i)}LOG:  statement: RESET search_path`]);
  }
  return out.map((e) => e.flatMap((l) => l.split('\n')));
}

async function auditJson(args: string[], out: string): Promise<AuditReport> {
  const run = await runAudit([...args, '--json', out]);
  expect(run.stderr).toBe('');
  return JSON.parse(await readFile(out, 'utf8')) as AuditReport;
}

/** The report with the fields that must differ set aside and sources mapped to the whole log. */
function comparable(report: AuditReport, map: (source: string) => string): string {
  const mapAll = <T extends { source: string; sources?: string[] }>(items: T[]): T[] =>
    items.map((i) => ({ ...i, source: map(i.source), ...(i.sources ? { sources: i.sources.map(map) } : {}) }));
  return JSON.stringify(
    {
      ...report,
      generatedAt: null,
      inputs: null,
      summary: { ...report.summary, durationMs: null, parsedTexts: null },
      findings: mapAll(report.findings),
      cleanups: mapAll(report.cleanups),
      unparsed: { ...report.unparsed, samples: mapAll(report.unparsed.samples) },
    },
    null,
    2,
  );
}

describe('audit --merge', () => {
  test('the merged reports of two halves of a log are the report of the whole log', async () => {
    const all = entries();
    const cut = Math.floor(all.length / 2);
    const firstLines = all.slice(0, cut).flat();
    const lines = (e: string[][]): string => `${e.flat().join('\n')}\n`;
    await writeFile(scratch.file('whole.log'), lines(all));
    await writeFile(scratch.file('half1.log'), lines(all.slice(0, cut)));
    await writeFile(scratch.file('half2.log'), lines(all.slice(cut)));
    const whole = await auditJson(['--log', scratch.file('whole.log')], scratch.file('whole.json'));
    await auditJson(['--log', scratch.file('half1.log')], scratch.file('half1.json'));
    await auditJson(['--log', scratch.file('half2.log')], scratch.file('half2.json'));
    const merged = await auditJson(
      ['--merge', scratch.file('half1.json'), scratch.file('half2.json')],
      scratch.file('merged.json'),
    );
    // Not vacuous: findings of several checks, counted in both halves, cleanups and unparsed.
    expect(whole.findings.length).toBeGreaterThan(5);
    const half1 = JSON.parse(await readFile(scratch.file('half1.json'), 'utf8')) as AuditReport;
    const total = (r: AuditReport): number => r.findings.reduce((n, f) => n + f.count, 0);
    expect(total(half1)).toBeGreaterThan(0);
    expect(total(whole)).toBeGreaterThan(total(half1));
    expect(whole.cleanups.length).toBeGreaterThan(0);
    expect(whole.unparsed.count).toBeGreaterThan(2);
    const toWhole = (source: string): string => {
      const [file, line] = [
        source.slice(0, source.lastIndexOf(':')),
        Number(source.slice(source.lastIndexOf(':') + 1)),
      ];
      const offset = file === scratch.file('half2.log') ? firstLines.length : 0;
      return `${scratch.file('whole.log')}:${line + offset}`;
    };
    expect(comparable(merged, toWhole)).toBe(comparable(whole, (s) => s));
    expect(merged.inputs.map((i) => i.statements)).toEqual([
      whole.summary.statements - merged.inputs[1]!.statements,
      merged.inputs[1]!.statements,
    ]);
  });

  test('reports joined with different poolers are refused; so is a file that is not an audit report', async () => {
    const report = JSON.parse(await readFile(scratch.file('half1.json'), 'utf8')) as AuditReport;
    await writeFile(
      scratch.file('other-pooler.json'),
      JSON.stringify({ ...report, pooler: { ...report.pooler, basis: 'report', name: 'pgbouncer.json' } }),
    );
    const mixed = await runAudit(['--merge', scratch.file('half1.json'), scratch.file('other-pooler.json')]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('AUDIT_INPUT');
    expect(mixed.stderr).toContain('different poolers');
    await writeFile(scratch.file('not-audit.json'), JSON.stringify({ checks: [] }));
    const wrong = await runAudit(['--merge', scratch.file('not-audit.json')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('not a pooltest audit report');
    const both = await runAudit(['--merge', scratch.file('half1.json'), '--log', scratch.file('whole.log')]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('BAD_ARGUMENTS');
  });
});
