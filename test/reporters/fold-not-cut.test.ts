/**
 * Issue 40: `pooltest diff` and `--compare` cut their advice at 120 columns with an ellipsis when
 * piped, where the main report folds it; the terminal matrix of eight targets was 247 columns
 * wide under headers `[1]`...`[8]`; and the pool size was 3 or 4 for `default_pool_size = 2`
 * with the reason only in the JSON and the HTML. Now every terminal output fits its width with
 * nothing cut, the matrix names its columns, and every report says how the pool was counted.
 */
import { describe, expect, test } from 'vitest';
import type { Report } from '../../engine/types.js';
import { renderDiff } from '../../reporters/diff-terminal.js';
import { renderHtml } from '../../reporters/html-reporter.js';
import { renderJunit } from '../../reporters/junit-reporter.js';
import { renderMarkdown } from '../../reporters/markdown-reporter.js';
import { buildMatrix } from '../../reporters/matrix.js';
import { renderMatrixTerminal } from '../../reporters/matrix-text.js';
import { diffReports } from '../../reporters/report-diff.js';
import { poolText } from '../../reporters/report-text.js';
import { renderDiscovery, renderReport } from '../../reporters/terminal-reporter.js';
import { recordedReport } from '../support/recorded-report.js';
import { unfold } from '../support/renderer-readings.js';

const widest = (text: string): number => Math.max(...text.split('\n').map((l) => [...l].length));

describe('diff and --compare (one renderer) fold the advice at the width, never cut it', () => {
  const pooled = recordedReport();
  const diff = diffReports(recordedReport('direct', 'direct'), pooled);
  const breaks = diff.entries.filter((e) => e.change === 'breaks' && e.advice);

  test.each([120, 100])('at %i columns every line fits and every advice is there in full', (width) => {
    const text = renderDiff(diff, { color: false, width });
    expect(breaks.length).toBeGreaterThan(5);
    expect(breaks.some((e) => `    advice: ${e.advice}`.length > width)).toBe(true);
    expect(widest(text)).toBeLessThanOrEqual(width);
    expect(text).not.toMatch(/…|\.\.\.$/m);
    for (const e of breaks) expect(unfold(text)).toContain(`advice: ${e.advice!}`);
  });
});

describe('the terminal matrix', () => {
  // Eight targets, as in the issue: eight runs of the recorded catalogue, named as poolers are.
  const names = [
    'PgBouncer 1.18.0 transaction on PG 15',
    'PgBouncer 1.18.0 session on PG 15',
    'PgBouncer 1.18.0 statement on PG 15',
    'pgpool-II 4.3 on PG 15',
    'Odyssey 1.5.1 transaction on PG 15',
    'pgagroal 1.6.0 transaction on PG 15',
    'PostgreSQL direct on PG 15',
    'PgBouncer 1.25.2 transaction on PG 18',
  ];
  const matrix = buildMatrix(
    names.map((name, i) => {
      const report = recordedReport(i % 2 === 0 ? 'pgbouncer-transaction' : 'direct', null);
      report.runId = `run${i}`;
      return { report, name, source: `r${i}.json` };
    }),
  );

  test('fits 120 columns, each column headed by its number and name', () => {
    const text = renderMatrixTerminal(matrix, { color: false });
    expect(widest(text)).toBeLessThanOrEqual(120);
    const headings = text.split('\n').filter((l) => /^CHECK /.test(l));
    expect(headings.length).toBeGreaterThan(1);
    // Every name is spelled out in the headings (folded over lines), not only a number.
    for (const [i, name] of names.entries()) {
      const first = name.split(' ')[0]!;
      expect(text).toMatch(new RegExp(`\\[${i + 1}\\] ${first.replace(/[.+]/g, '\\$&')}`));
    }
    // Each page repeats every check, so a row reads across its page.
    for (const row of matrix.rows)
      expect(text.split('\n').filter((l) => l.startsWith(`${row.id} `))).toHaveLength(headings.length);
  });

  test('control: the same matrix laid out at 300 columns is one page', () => {
    const text = renderMatrixTerminal(matrix, { color: false, width: 300 });
    expect(text.split('\n').filter((l) => /^CHECK /.test(l))).toHaveLength(1);
  });
});

describe('the pool size says how it was counted', () => {
  const counted = (poolCount: Report['discovery']['poolCount'], poolSize = 4): Report => {
    const r = recordedReport();
    r.discovery = { ...r.discovery, poolSize, ...(poolCount ? { poolCount } : {}) };
    return r;
  };
  const busy = counted({ held: 2, busyElsewhere: 2, end: 'queued' });
  const why =
    'an upper bound: pooltest held 2 at once and 2 more were busy with other clients when the next client queued';

  test.each([
    ['terminal', () => renderReport(busy, { color: false, width: 300 })],
    ['Markdown', () => renderMarkdown(busy)],
    ['HTML', () => renderHtml(busy)],
    ['JUnit', () => renderJunit(busy)],
  ])('%s shows the size with the reason beside it', (_, render) => {
    expect(render()).toContain(`4 (${why})`);
  });

  test('the terminal folds the longer discovery lines at its width, the reason in full', async () => {
    const { Chalk } = await import('chalk');
    const text = renderDiscovery(busy.discovery, new Chalk({ level: 0 }), 80);
    expect(widest(text)).toBeLessThanOrEqual(80);
    expect(unfold(text)).toContain(`pool 4 (${why})`);
  });

  test('a plain count says what ended it; a report written before the count was kept shows the number', () => {
    expect(poolText(counted({ held: 2, busyElsewhere: 0, end: 'queued' }, 2).discovery)).toBe(
      '2 (2 held at once, then the next client queued)',
    );
    expect(poolText(counted({ held: 3, busyElsewhere: 0, end: 'refused' }, 3).discovery)).toBe(
      '3 (3 held at once, then the next client was refused)',
    );
    expect(poolText(counted(undefined, 2).discovery)).toBe('2');
    expect(poolText({ poolSize: null, poolBound: 8 })).toBe('no limit up to 8');
  });
});
