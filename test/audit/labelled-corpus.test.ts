/**
 * The audit measured against a labelled corpus of real applications' SQL patterns (migration
 * tools' advisory locks, ORM session settings, job queues' LISTEN, multi-tenant search_path and
 * settings, drivers' named statements in server logs). Every statement carries the finding
 * written by hand beside it, with a one-line reason; the test runs the real audit over the
 * files and computes precision and recall over (statement, finding) pairs. Both must be 1.0:
 * a finding the corpus does not state is a false positive (a cleanup counted as a break is
 * one), a stated finding the audit misses is a false negative.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { audit } from '../../audit/audit.js';
import type { AuditReport } from '../../audit/audit-types.js';
import { DRIVER_LOG } from './corpus/driver-log.js';
import { useScratchDir } from './audit-helpers.js';

const CORPUS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'corpus');
const scratch = useScratchDir('corpus');

/** "file:line" -> labels expected there ("none" is the empty set). */
type Labelled = Map<string, { labels: Set<string>; why: string }>;

function labels(text: string): Set<string> {
  return new Set(text === 'none' ? [] : text.split(' + ').map((l) => l.trim()));
}

/** Reads `-- expect: LABELS -- why` annotations; each applies to the next statement line. */
function annotations(file: string): Labelled {
  const out: Labelled = new Map();
  let pending: { labels: Set<string>; why: string } | null = null;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const m = /^-- expect: (.+?) -- (.+)$/.exec(line);
      if (m) {
        if (pending) throw new Error(`${file}:${i + 1}: two expectations in a row`);
        pending = { labels: labels(m[1]!), why: m[2]! };
        return;
      }
      if (line.trim() === '' || line.startsWith('--')) return;
      if (pending === null) throw new Error(`${file}:${i + 1}: statement without an expectation: ${line}`);
      out.set(`${file}:${i + 1}`, pending);
      pending = null;
    });
  return out;
}

/** What the audit reported, as "source" -> labels (findings with their also-checks, and cleanups). */
function predicted(report: AuditReport): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (source: string, label: string): void => {
    out.set(source, (out.get(source) ?? new Set()).add(label));
  };
  for (const f of report.findings) {
    // Sources are bounded per finding: the corpus must not depend on the bound.
    expect(f.sources.length, `${f.check} ${f.statement}`).toBe(
      f.check === 'prepared/protocol-named' ? f.sources.length : f.count,
    );
    for (const s of f.sources) for (const check of [f.check, ...f.alsoChecks]) add(s, check);
  }
  for (const c of report.cleanups)
    for (const s of c.sources) add(s, `cleanup of ${c.undoes.length > 1 ? 'all' : c.undoes[0]}`);
  return out;
}

interface Score {
  tp: number;
  fp: string[];
  fn: string[];
}

function score(expected: Labelled, got: Map<string, Set<string>>): Score {
  const s: Score = { tp: 0, fp: [], fn: [] };
  for (const [where, { labels: want, why }] of expected) {
    const have = got.get(where) ?? new Set<string>();
    for (const l of want)
      if (have.has(l)) s.tp++;
      else s.fn.push(`${where}: missed ${l} (${why})`);
    for (const l of have)
      if (!want.has(l)) s.fp.push(`${where}: reported ${l}, expected ${[...want].join(' + ') || 'none'} (${why})`);
  }
  for (const [where, have] of got)
    if (!expected.has(where)) s.fp.push(`${where}: reported ${[...have].join(' + ')} at no labelled statement`);
  return s;
}

const totals: Score = { tp: 0, fp: [], fn: [] };
const files = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.sql'))
  .sort();

function record(s: Score): void {
  totals.tp += s.tp;
  totals.fp.push(...s.fp);
  totals.fn.push(...s.fn);
}

describe('the labelled corpus', () => {
  test.each(files)('%s: every statement gets exactly its labelled findings', async (name) => {
    const file = path.join(CORPUS, name);
    const expected = annotations(file);
    expect(expected.size).toBeGreaterThan(10);
    const report = await audit({ sql: [file] });
    const s = score(expected, predicted(report));
    record(s);
    expect(s.fp, 'false positives').toEqual([]);
    expect(s.fn, 'false negatives').toEqual([]);
  });

  test('driver-log: named protocol statements and cleanup in a server log', async () => {
    const file = scratch.file('driver.log');
    await writeFile(file, `${DRIVER_LOG.map(([line]) => line).join('\n')}\n`);
    const expected: Labelled = new Map(
      DRIVER_LOG.map(([, want, why], i) => [`${file}:${i + 1}`, { labels: labels(want), why }]),
    );
    const report = await audit({ logs: [file] });
    const s = score(expected, predicted(report));
    record(s);
    expect(s.fp, 'false positives').toEqual([]);
    expect(s.fn, 'false negatives').toEqual([]);
    // Executions only: the parse and bind lines of orders_by_day are evidence, not runs.
    expect(report.findings.find((f) => f.what === 'named protocol statement "orders_by_day"')?.count).toBe(0);
  });

  test('control: labelling a cleanup as a break (what the audit used to do) scores as a miss and a false positive', async () => {
    const file = path.join(CORPUS, 'multi-tenant.sql');
    const expected = annotations(file);
    const reset = [...expected].find(([, v]) => v.why.startsWith('RESET ROLE undoes it'));
    expect(reset).toBeDefined();
    expected.set(reset![0], { labels: new Set(['session/role-leak']), why: 'wrong on purpose' });
    const s = score(expected, predicted(await audit({ sql: [file] })));
    expect(s.fp).toHaveLength(1);
    expect(s.fn).toHaveLength(1);
  });

  test('precision and recall over the whole corpus are both 1.0', () => {
    const precision = totals.tp / (totals.tp + totals.fp.length);
    const recall = totals.tp / (totals.tp + totals.fn.length);
    // The figures, for the record (reported in the test output).
    console.info(
      `audit corpus: ${totals.tp} true positives, ${totals.fp.length} false positives, ${totals.fn.length} false negatives; precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}`,
    );
    expect(totals.tp).toBeGreaterThan(50);
    expect(precision).toBe(1);
    expect(recall).toBe(1);
  });
});
