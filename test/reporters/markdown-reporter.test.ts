/**
 * The Markdown report: one table row per check (worst severity first) whose cells hostile text
 * cannot break, and every check's evidence and advice in a footnote the row points at.
 */
import { describe, expect, test } from 'vitest';
import { renderMarkdown } from '../../reporters/markdown-reporter.js';
import { inline, withLinks } from '../../reporters/markdown.js';
import { pgbouncerReport, troubledReport } from './samples.js';

/** Table rows (not the header or the separator). */
function rows(md: string): string[] {
  return md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Check') && !l.startsWith('| ---'));
}

/** Cells of a row, splitting only on unescaped pipes. */
function cells(row: string): string[] {
  return row.slice(2, -2).split(/(?<!\\)\|/).map((c) => c.trim());
}

describe('Markdown report', () => {
  test('a heading naming the pooler, one row per check with five cells, and a summary', () => {
    const report = pgbouncerReport();
    const md = renderMarkdown(report);
    expect(md.split('\n')[0]).toBe('### pooltest: PgBouncer 1.18.0, transaction mode, pool 2');
    expect(rows(md)).toHaveLength(report.checks.length);
    for (const row of rows(md)) expect(cells(row)).toHaveLength(5);
    expect(rows(md)[0]).toBe('| `session/set-leak` SET statement\\_timeout stays with the client that ran it | correctness | `leaked`[^1] | `leaked` | ✅ pass |');
    expect(md).toContain(`**${report.checks.length} checks:** ${report.checks.length} pass, 0 fail`);
  });

  test('every row has a footnote with the evidence, the reference and the advice', () => {
    const report = pgbouncerReport();
    const md = renderMarkdown(report);
    report.checks.forEach((c, i) => {
      const note = md.split('\n').find((l) => l.startsWith(`[^${i + 1}]: `));
      expect(note, c.id).toContain(`\`${c.id}\``);
      if (c.advice) expect(note).toContain('**Advice:**');
    });
    expect(md).toContain('Expected per: <https://www.pgbouncer.org/features.html> (SET/RESET: Never)');
  });

  test('severity groups come worst first, and problems show their verdict and why', () => {
    const md = renderMarkdown(troubledReport());
    const ids = rows(md).map((r) => /`([^`]+)`/.exec(r)?.[1]);
    expect(ids[0]).toBe('locks/advisory-session');
    expect(md).toContain('❌ **fail**');
    expect(md).toContain('⚠️ inconclusive');
    expect(md).toMatch(/Why inconclusive: steering failed/);
    expect(md).toContain('Sweep: **dirty**');
  });

  test('hostile text cannot split cells, end a footnote or leak a password', () => {
    const md = renderMarkdown(troubledReport());
    for (const row of rows(md)) expect(cells(row)).toHaveLength(5);
    const notes = md.split('\n').filter((l) => /^\[\^\d+\]: /.test(l));
    expect(notes).toHaveLength(troubledReport().checks.length);
    expect(md).not.toContain('S3cret');
    expect(inline('a|b\nc <d>')).toBe('a\\|b c \\<d\\>');
    expect(withLinks('see https://x.org/a_b. and (https://y.org)')).toBe('see <https://x.org/a_b>. and (<https://y.org>)');
  });
});
