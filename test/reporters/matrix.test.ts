/**
 * The compatibility matrix: reports merged into checks x targets, cells that differ from the
 * first column marked in every format, and reports that cannot be merged refused with a code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { isPooltestError } from '../../engine/record/errors.js';
import { renderMatrixHtml } from '../../reporters/matrix-html.js';
import { renderMatrixMarkdown, renderMatrixTerminal } from '../../reporters/matrix-text.js';
import { buildMatrix, differingRows } from '../../reporters/matrix.js';
import { runCli } from '../support/cli.js';
import { directReport, HOSTILE, pgbouncerReport } from './samples.js';

const both = () =>
  buildMatrix([
    { report: directReport(), source: 'direct.json' },
    { report: pgbouncerReport(), source: 'pgbouncer.json' },
  ]);

describe('compatibility matrix', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-matrix-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('checks as rows, reports as columns named after pooler, mode and server; differences from the first column marked', () => {
    const m = both();
    expect(m.columns.map((c) => c.name)).toEqual([
      'PostgreSQL direct on PG 15',
      'PgBouncer 1.18.0 transaction on PG 15',
    ]);
    const row = (id: string) => m.rows.find((r) => r.id === id)!;
    expect(row('session/set-leak').cells).toEqual([
      { outcome: 'session', verdict: 'pass', differs: false, breaks: false },
      { outcome: 'leaked', verdict: 'pass', differs: true, breaks: true },
    ]);
    // The control: an outcome both give is not marked.
    expect(row('session/set-local').cells.map((c) => c.differs)).toEqual([false, false]);
    expect(differingRows(m).map((r) => r.id)).not.toContain('session/set-local');
    const md = renderMatrixMarkdown(m);
    expect(md).toContain('| `session/set-leak` | correctness | `session` | **`leaked`** ⚠ |');
    expect(md).toContain('| `session/set-local` | correctness | `scoped` | `scoped` |');
    const term = renderMatrixTerminal(m, { color: false });
    expect(term).toMatch(/session\/set-leak\s+session\s+leaked\*/);
    expect(renderMatrixHtml(m)).toMatch(/<td class="differs v-pass"><code class="breaks">leaked<\/code><\/td>/);
  });

  test('an inconclusive cell keeps its reason; a cell seen to vary shows every outcome seen, in every format', () => {
    const r = pgbouncerReport();
    Object.assign(
      r.checks.find((c) => c.id === 'session/set-local')!,
      {
        outcome: null,
        verdict: 'inconclusive',
        reason: 'the pool changed',
      },
    );
    const m = buildMatrix([
      { report: directReport(), source: 'direct.json' },
      { report: r, source: 'pgbouncer.json' },
    ]);
    const row = (id: string) => m.rows.find((x) => x.id === id)!;
    expect(row('session/set-local').cells[1]).toMatchObject({ verdict: 'inconclusive', reason: 'the pool changed' });
    // The control: a conclusive cell carries no reason.
    expect(row('session/set-leak').cells[1]).not.toHaveProperty('reason');
    Object.assign(row('session/set-leak').cells[1]!, { seen: ['leaked', 'session'] });
    expect(renderMatrixMarkdown(m)).toContain(
      '| `session/set-leak` | correctness | `session` | **`leaked` \\| `session`** ⚠ |',
    );
    expect(renderMatrixTerminal(m, { color: false })).toMatch(/session\/set-leak\s+session\s+leaked\|session\*/);
    expect(renderMatrixHtml(m)).toMatch(/<code class="breaks">leaked<\/code> \| <code class="">session<\/code>/);
  });

  test('hostile text in reports stays text in Markdown and HTML', () => {
    const r = pgbouncerReport();
    r.checks[0]!.outcome = HOSTILE;
    const m = buildMatrix([{ report: r, source: 'x', name: `<script>${HOSTILE}` }]);
    expect(renderMatrixHtml(m)).not.toMatch(/<script|<b> &/);
    expect(renderMatrixHtml(m)).not.toContain('S3cret');
    const md = renderMatrixMarkdown(m);
    for (const line of md.split('\n').filter((l) => l.startsWith('| `')))
      expect(line.split(/(?<!\\)\|/).length).toBe(5);
  });

  test('the same run twice, or two reports that would share a column, are refused with REPORT_DUPLICATE', () => {
    const same = () =>
      buildMatrix([
        { report: pgbouncerReport(), source: 'a.json' },
        { report: pgbouncerReport(), source: 'b.json' },
      ]);
    expect(same).toThrowError(/same run/);
    const other = pgbouncerReport();
    other.runId = 'another';
    try {
      buildMatrix([
        { report: pgbouncerReport(), source: 'a.json' },
        { report: other, source: 'b.json' },
      ]);
      expect.unreachable();
    } catch (e) {
      expect(isPooltestError(e) && e.code).toBe('REPORT_DUPLICATE');
      expect(String(e)).toContain('name them apart');
    }
    expect(
      buildMatrix([
        { report: pgbouncerReport(), source: 'a.json', name: 'a' },
        { report: other, source: 'b.json', name: 'b' },
      ]).columns,
    ).toHaveLength(2);
  });

  test('the CLI writes Markdown, HTML and JSON, names columns with NAME=FILE, and exits 2 on bad input', async () => {
    const a = path.join(dir, 'direct.json');
    const b = path.join(dir, 'pgb.json');
    writeFileSync(a, JSON.stringify(directReport()));
    writeFileSync(b, JSON.stringify(pgbouncerReport()));
    const ok = await runCli([
      'matrix',
      `postgres=${a}`,
      b,
      '--markdown',
      path.join(dir, 'm.md'),
      '--html',
      path.join(dir, 'm.html'),
      '--json',
      path.join(dir, 'm.json'),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('[1] postgres:');
    const json = JSON.parse(readFileSync(path.join(dir, 'm.json'), 'utf8'));
    expect(json).toMatchObject({ kind: 'pooltest-matrix', version: 1 });
    expect(json.columns.map((c: { name: string }) => c.name)).toEqual([
      'postgres',
      'PgBouncer 1.18.0 transaction on PG 15',
    ]);
    expect(readFileSync(path.join(dir, 'm.md'), 'utf8')).toContain(
      '| Check | Severity | postgres | PgBouncer 1.18.0 transaction on PG 15 |',
    );
    expect(readFileSync(path.join(dir, 'm.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
    writeFileSync(path.join(dir, 'bad.json'), '{ not json');
    writeFileSync(path.join(dir, 'schema.json'), JSON.stringify({ schemaVersion: 99, checks: [] }));
    for (const [args, code] of [
      [[path.join(dir, 'bad.json')], 'REPORT_INVALID'],
      [[path.join(dir, 'schema.json')], 'REPORT_INVALID'],
      [[b, b], 'REPORT_DUPLICATE'],
      [[], 'BAD_ARGUMENTS'],
    ] as const) {
      const run = await runCli(['matrix', ...args]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`^pooltest: ${code}: `));
    }
  });
});
