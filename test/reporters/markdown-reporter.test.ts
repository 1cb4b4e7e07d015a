/**
 * The Markdown report, shaped for a pull request: the summary first, one table row per check
 * (worst severity first) whose cells hostile text cannot break, and a collapsed <details> with
 * evidence, advice and a Mermaid diagram for every check that breaks, fails or is inconclusive.
 * (Until issue 12 the evidence sat in one footnote per row; these tests replace the footnote
 * assertions with the <details> ones.)
 */
import { describe, expect, test } from 'vitest';
import { COMMENT_BUDGET, needsAttention, renderMarkdown } from '../../reporters/markdown-reporter.js';
import { inline, withLinks } from '../../reporters/markdown.js';
import { pgbouncerReport, troubledReport } from './samples.js';
import { reportCounts } from '../../reporters/verdict-text.js';
import { poolText } from '../../reporters/report-text.js';

/** Table rows (not the header or the separator). */
function rows(md: string): string[] {
  return md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Check') && !l.startsWith('| ---'));
}

/** Cells of a row, splitting only on unescaped pipes. */
function cells(row: string): string[] {
  return row
    .slice(2, -2)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** The <details> blocks, by the check id in their summary. */
function blocks(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of md.matchAll(/<details>\n<summary><code>([^<]+)<\/code>[\s\S]*?<\/details>/g)) out.set(m[1]!, m[0]);
  return out;
}

describe('Markdown report', () => {
  test('a heading naming the pooler, the summary before the table, one row per check with five cells', () => {
    const report = pgbouncerReport();
    const md = renderMarkdown(report);
    const lines = md.split('\n');
    const { pooler } = report.discovery;
    // The pool with how it was counted, where the report recorded that (poolText).
    expect(lines[0]).toBe(
      `### pooltest: PgBouncer ${pooler!.version}, transaction mode, pool ${poolText(report.discovery)}`,
    );
    expect(lines[2]).toContain(`**${report.checks.length} checks:** ${reportCounts(report)}.`);
    expect(lines[2]).toMatch(/ outcomes? breaks? an application; \d+ pass \(\d+ of them expected breaks\), 0 fail/);
    expect(md.indexOf(`**${report.checks.length} checks:**`)).toBeLessThan(md.indexOf('| Check'));
    expect(md.match(/^\| Check/gm)).toHaveLength(1);
    expect(rows(md)).toHaveLength(report.checks.length);
    for (const row of rows(md)) expect(cells(row)).toHaveLength(5);
    expect(rows(md)[0]).toBe(
      '| `session/set-leak` SET statement\\_timeout stays with the client that ran it | correctness | `leaked` ⚠️ | `leaked` | ✅ pass |',
    );
  });

  test('every breaking check gets a collapsed block with evidence, reference, advice and a Mermaid diagram', () => {
    const report = pgbouncerReport();
    const md = renderMarkdown(report);
    const found = blocks(md);
    const breaking = report.checks.filter(needsAttention).map((c) => c.id);
    // The control: this real run has both breaking and non-breaking checks.
    expect(breaking).toContain('session/set-leak');
    expect(breaking).not.toContain('session/set-local');
    expect([...found.keys()].sort()).toEqual([...breaking].sort());
    for (const id of breaking) {
      const c = report.checks.find((x) => x.id === id)!;
      const block = found.get(id)!;
      expect(block).toContain('**Evidence:**');
      if (c.advice) expect(block).toContain('**Advice:**');
      expect(block).toMatch(/```mermaid\nsequenceDiagram\n[\s\S]*\n```/);
      for (const pid of new Set(c.steps.map((s) => s.pid).filter((p) => p !== null)))
        expect(block, id).toContain(`pid ${pid}`);
    }
    // The reference the profile gives, with where its expectation came from.
    const setLeak = report.checks.find((c) => c.id === 'session/set-leak')!;
    expect(setLeak.expectedRef).toContain('SET/RESET: Never');
    expect(setLeak.expectedBasis).toBe('observed');
    expect(found.get('session/set-leak')).toContain(
      `Expected (observed on pooltest's fixtures) per: ${withLinks(setLeak.expectedRef!)}`,
    );
    expect(found.get('session/set-leak')).toMatch(
      /rect rgb\(255, 215, 213\)[\s\S]*Note over c1,b0: decisive: O1 got A's backend/,
    );
    // The other checks' evidence is one collapsed list, not lost.
    expect(md).toMatch(/<summary>Evidence for the other \d+ check\(s\)<\/summary>[\s\S]*`session\/set-local` `scoped`/);
  });

  test('severity groups come worst first, and problems show their verdict and why', () => {
    const md = renderMarkdown(troubledReport());
    const ids = rows(md).map((r) => /`([^`]+)`/.exec(r)?.[1]);
    expect(ids[0]).toBe('locks/advisory-session');
    expect(md).toContain('❌ **FAIL**');
    expect(md).toContain('⚠️ inconclusive');
    expect(blocks(md).get('temp/temp-table')).toMatch(/\*\*Why inconclusive:\*\* steering failed/);
    expect(md).toContain('Sweep: **dirty**');
  });

  test('hostile text cannot split cells, open a tag, end a block or leak a password', () => {
    const md = renderMarkdown(troubledReport());
    for (const row of rows(md)) expect(cells(row)).toHaveLength(5);
    expect(md.match(/<details>/g)?.length).toBe(md.match(/<\/details>/g)?.length);
    expect(md).not.toContain('<b>');
    expect(md).not.toContain('S3cret');
    expect(inline('a|b\nc <d>')).toBe('a\\|b c \\<d\\>');
    expect(withLinks('see https://x.org/a_b. and (https://y.org)')).toBe(
      'see <https://x.org/a_b>. and (<https://y.org>)',
    );
  });

  test('a report too big for one GitHub comment keeps every block but drops the last diagrams, and says so', () => {
    const r = pgbouncerReport();
    const base = r.checks[0]!;
    // A step drawn in a diagram (the record's run.markers step, first, is not drawn).
    const drawn = base.steps.find((st) => st.tag === 'A.create')!;
    // 40 breaking checks with long steps: far beyond what a comment may hold with diagrams.
    r.checks = Array.from({ length: 40 }, (_, i) => ({
      ...structuredClone(base),
      id: `session/copy-${i}`,
      steps: Array.from({ length: 30 }, (_, j) => ({
        ...structuredClone(drawn),
        seq: j + 1,
        sql: `SELECT ${'x'.repeat(200)} -- ${j}`,
      })),
    }));
    const md = renderMarkdown(r);
    expect(md.length).toBeLessThan(COMMENT_BUDGET + 10_000);
    expect(md.match(/<summary><code>session\/copy-/g)).toHaveLength(40);
    expect(md).toMatch(/Sequence diagrams of the last \d+ check\(s\) left out/);
    expect(md).toContain('```mermaid');
    // The control: the real report fits and keeps all its diagrams.
    expect(renderMarkdown(pgbouncerReport())).not.toContain('left out');
  });
});
