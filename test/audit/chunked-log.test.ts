/**
 * How a log is cut up must never show in its report: read in reads of a few bytes (so nearly
 * every line, multi-byte character, `\r\n` and multi-line statement crosses a read), and read
 * by several threads over parts of the file, a log gives exactly the report of one thread
 * reading it in large reads. In the three formats: stderr and jsonlog are read in parts, csvlog
 * always on one thread (a quoted field may hold newlines) and must still come out the same.
 *
 * Threads need the built worker script, so the runs with jobs use the built audit (dist/, as
 * `npm run build` leaves it); the reference run is the same built code with one thread.
 */
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { AuditReport } from '../../audit/audit-types.js';
import { cutNear, PARALLEL_MIN_BYTES, workersFor } from '../../audit/log-parallel.js';
import { MULTI_LINE, REPEATED, inlined } from '../../bench/audit-log-mix.js';
import { REPO } from '../support/cli.js';
import { useScratchDir } from './audit-helpers.js';

type AuditFn = typeof import('../../audit/audit.js').audit;
const built = (async (): Promise<AuditFn> =>
  ((await import(pathToFileURL(join(REPO, 'dist/audit/audit.js')).href)) as { audit: AuditFn }).audit)();

const scratch = useScratchDir('chunked');

/** A statement of the mix: multi-line ones, hazards, unparsable ones, a non-ASCII one. */
function statement(i: number): string {
  if (i % 3 === 0) return MULTI_LINE;
  if (i % 97 === 0) return `SELEC ${i % 60}`;
  if (i % 83 === 0) return `SET search_path = t${i}`;
  if (i % 71 === 0) return `SELECT 'naïve ☃ ${i}' AS x`;
  return i % 10 === 1 ? inlined(i) : REPEATED[i % REPEATED.length]!;
}

const N = 400;
const stamp = (i: number): string => `2026-01-01 10:00:${String(i % 60).padStart(2, '0')}.000 UTC`;

function stderrLog(): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < N; i++) {
    const p = `${stamp(i)} [${100 + (i % 7)}] app@db `;
    const eol = i % 11 === 0 ? '\r\n' : '\n';
    parts.push(Buffer.from(`${p}LOG:  statement: ${statement(i).replace(/\n/g, `${eol}\t`)}${eol}`));
    if (i % 5 === 0) parts.push(Buffer.from(`${p}LOG:  execute S_${i % 4}: SELECT pg_advisory_lock($1)${eol}`));
    if (i % 5 === 1)
      parts.push(
        Buffer.from(`${p}LOG:  execute <unnamed>: SELECT lastval()${eol}${p}DETAIL:  parameters: $1 = '1'${eol}`),
      );
    if (i % 7 === 0) parts.push(Buffer.from(`${p}LOG:  duration: 0.0${i} ms  statement: LISTEN c${i % 3}${eol}`));
    if (i === 300)
      parts.push(Buffer.from([...Buffer.from(`${p}LOG:  statement: SELECT '`), 0xff, ...Buffer.from("'\n")]));
  }
  return Buffer.concat(parts);
}

function csvLog(): Buffer {
  const quoted = (s: string): string => `"${s.replace(/"/g, '""')}"`;
  const lines: string[] = [];
  for (let i = 0; i < N; i++) {
    const message = quoted(`statement: ${statement(i)}`);
    lines.push(
      `${stamp(i)},"app","db",${100 + (i % 7)},"127.0.0.1:5000",s.1,${i},"idle",${stamp(0)},3/1,0,LOG,00000,${message},,,,,,,,,"psql","client backend",,0`,
    );
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

function jsonLog(): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < N; i++)
    lines.push(
      JSON.stringify({
        timestamp: stamp(i),
        pid: 100 + (i % 7),
        error_severity: 'LOG',
        message: `statement: ${statement(i)}`,
      }),
    );
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** The report as --json writes it, without what may differ between runs. */
function comparable(report: AuditReport, parsedTexts: boolean): string {
  const r = JSON.parse(JSON.stringify(report)) as AuditReport;
  return JSON.stringify({
    ...r,
    generatedAt: null,
    summary: { ...r.summary, durationMs: null, parsedTexts: parsedTexts ? r.summary.parsedTexts : null },
  });
}

describe.each([
  ['stderr', stderrLog],
  ['csvlog', csvLog],
  ['jsonlog', jsonLog],
] as const)('a %s log cut into reads and parts', (format, make) => {
  test('gives the report of one thread reading it whole', async () => {
    const audit = await built;
    const file = scratch.file(`postgresql-${format}.log`);
    await writeFile(file, make());
    const whole = await audit({ logs: [file], jobs: 1 });
    // Not vacuous: findings, unparsed texts, sources far into the file.
    expect(whole.inputs[0]!.format).toBe(format);
    expect(whole.findings.length).toBeGreaterThanOrEqual(4);
    expect(whole.unparsed.count).toBeGreaterThan(0);
    expect(whole.summary.statements).toBeGreaterThanOrEqual(N);
    // Reads of 7 bytes: one thread, so even the count of parsed texts is the same.
    const small = await audit({ logs: [file], jobs: 1, chunkBytes: 7 });
    expect(comparable(small, true)).toBe(comparable(whole, true));
    // Two threads over parts, each reading 61 bytes at a time (each thread has its own cache).
    const parts = await audit({ logs: [file], jobs: 2, chunkBytes: 61 });
    expect(comparable(parts, false)).toBe(comparable(whole, false));
    // Proof the parts were read by threads of their own: each classified its own texts afresh.
    // csvlog is read on one thread whatever --jobs says.
    if (format === 'csvlog') expect(parts.summary.parsedTexts).toBe(whole.summary.parsedTexts);
    else expect(parts.summary.parsedTexts).toBeGreaterThan(whole.summary.parsedTexts);
  });
});

test('control: a report that differs in one source is told apart', async () => {
  const audit = await built;
  const file = scratch.file('control.log');
  await writeFile(file, stderrLog());
  const whole = await audit({ logs: [file], jobs: 1 });
  const moved = JSON.parse(JSON.stringify(whole)) as AuditReport;
  moved.findings[0]!.sources[0] = `${file}:1`;
  expect(comparable(moved, false)).not.toBe(comparable(whole, false));
});

test('a log file of PARALLEL_MIN_BYTES or more is read by one thread per core unless --jobs says otherwise', () => {
  expect(workersFor(undefined, PARALLEL_MIN_BYTES - 1)).toBe(1);
  expect(workersFor(undefined, PARALLEL_MIN_BYTES)).toBe(Math.min(availableParallelism(), 8));
  expect(workersFor(1, 10 * PARALLEL_MIN_BYTES)).toBe(1);
  expect(workersFor(3, 10)).toBe(3);
});

test('the main thread, which starts reading first, gets a longer part; the workers share the rest and none goes without', () => {
  const cuts = (size: number, jobs: number): number[] =>
    Array.from({ length: jobs - 1 }, (_, i) => cutNear(size, jobs, i + 1));
  const parts = (size: number, jobs: number): number[] =>
    [0, ...cuts(size, jobs), size].slice(1).map((end, i, ends) => end - (i === 0 ? 0 : ends[i - 1]!));
  // The bench's 1M log with two threads: more than half for the main thread, not all of it.
  const [main, worker] = parts(160_000_000, 2);
  expect(main).toBeGreaterThan(worker! + 20_000_000);
  expect(worker).toBeGreaterThan(0);
  // Four threads: the three workers' parts are equal (to a byte) and each shorter than the first.
  const four = parts(160_000_000, 4);
  expect(Math.max(...four.slice(1)) - Math.min(...four.slice(1))).toBeLessThanOrEqual(1);
  expect(four[0]).toBeGreaterThan(four[1]!);
  // A few kilobytes (what the tests read with three threads) still gives every thread a part.
  for (const part of parts(5000, 3)) expect(part).toBeGreaterThan(1000);
});

test('non-ASCII statements keep their characters whether their read is ASCII or not', async () => {
  // ASCII lines are copied byte for byte (latin1) instead of decoded: a line with a multi-byte
  // character must still be decoded as UTF-8, in a read of its own (7 bytes: most reads are
  // plain ASCII, the character's bytes cross reads) and in one read shared with ASCII lines.
  const audit = await built;
  const file = scratch.file('non-ascii.log');
  const p = '2026-01-01 10:00:00.000 UTC [100] app@db ';
  const texts = ["SET application_name = 'naïve ☃'", 'LISTEN "café"', 'SELECT 1'];
  await writeFile(file, texts.map((t) => `${p}LOG:  statement: ${t}\n`).join(''));
  for (const chunkBytes of [7, 1024]) {
    const report = await audit({ logs: [file], jobs: 1, chunkBytes });
    expect(report.findings.map((f) => f.statement).sort()).toEqual([texts[1], texts[0]]);
  }
});
