/**
 * Progress while the audit reads large logs: on a terminal a throttled, self-clearing line with
 * bytes, lines and rate; anywhere else nothing at all. The logic is tested with an injected
 * clock and TTY flag (a pseudo-terminal is not at hand in CI), the wiring with a real log read,
 * and the CLI with a real, piped stderr that must stay clean.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { AuditCollector } from '../../audit/audit-collector.js';
import { auditLogFile } from '../../audit/log-input.js';
import { progressText, readProgress, type ProgressSink } from '../../audit/read-progress.js';
import { loadParser } from '../../common/sql-parser.js';
import { runCli } from '../support/cli.js';
import { useScratchDir } from './audit-helpers.js';

const LINE = '2026-01-01 10:00:00.000 UTC [4242] app@app LOG:  statement: SELECT pg_advisory_lock(1)\n';
const scratch = useScratchDir('progress');

function clocked(isTTY: boolean): { sink: ProgressSink; writes: string[]; at(ms: number): void } {
  let t = 0;
  const writes: string[] = [];
  const sink = readProgress({ write: (s) => writes.push(s), isTTY, now: () => t, columns: 200 });
  return { sink, writes, at: (ms) => (t = ms) };
}

describe('audit read progress', () => {
  test('on a terminal: at most four updates a second, each rewriting the line, cleared at the end', () => {
    const p = clocked(true);
    p.sink.start('big.log', 100 * 1024 * 1024);
    // A chunk every millisecond for two seconds.
    for (let ms = 1; ms <= 2000; ms++) {
      p.at(ms);
      p.sink.update(ms * 50 * 1024, ms * 400);
    }
    expect(p.writes.length).toBeGreaterThanOrEqual(7);
    expect(p.writes.length).toBeLessThanOrEqual(8);
    expect(p.writes.every((w) => w.startsWith('\r\x1b[K'))).toBe(true);
    expect(p.writes.at(-1)).toBe('\r\x1b[Kreading big.log: 97.7 MiB of 100.0 MiB (97%), 800,000 lines, 48.8 MiB/s');
    p.sink.done();
    expect(p.writes.at(-1)).toBe('\r\x1b[K');
  });

  test('a small file read within the first interval shows nothing, and nothing needs clearing', () => {
    const p = clocked(true);
    p.sink.start('small.log', 1000);
    p.at(10);
    p.sink.update(1000, 10);
    p.sink.done();
    expect(p.writes).toEqual([]);
  });

  test('without a terminal nothing is ever written', () => {
    const p = clocked(false);
    p.sink.start('big.log', null);
    for (let ms = 0; ms <= 5000; ms += 100) {
      p.at(ms);
      p.sink.update(ms * 1024, ms);
    }
    p.sink.done();
    expect(p.writes).toEqual([]);
  });

  test('standard input has no total: bytes, lines and rate only', () => {
    expect(progressText('stdin', 3 * 1024 * 1024, 1234, null, 1000)).toBe(
      'reading stdin: 3.0 MiB, 1,234 lines, 3.0 MiB/s',
    );
  });

  test('a real log read reports cumulative bytes and lines up to the whole file', async () => {
    await loadParser();
    const file = scratch.file('counted.log');
    writeFileSync(file, LINE.repeat(50_000));
    const seen: Array<[number, number]> = [];
    let started: [string, number | null] | null = null;
    let done = 0;
    await auditLogFile(file, new AuditCollector(), {
      format: 'auto',
      maxStatementBytes: 1 << 20,
      progress: { start: (n, t) => (started = [n, t]), update: (b, l) => seen.push([b, l]), done: () => done++ },
    });
    expect(started).toEqual([file, LINE.length * 50_000]);
    expect(seen.at(-1)).toEqual([LINE.length * 50_000, 50_000]);
    expect(seen.every(([b], i) => i === 0 || b > seen[i - 1]![0])).toBe(true);
    expect(done).toBe(1);
  });

  test('the CLI with stderr piped (not a terminal) prints no progress', async () => {
    const file = scratch.file('piped.log');
    writeFileSync(file, LINE.repeat(200_000));
    const run = await runCli(['audit', '--log', file]);
    // Exit 3: findings that typically break, with no pooler given to confirm them.
    expect(run.code, run.stderr).toBe(3);
    expect(run.stdout).toContain('pg_advisory_lock');
    expect(run.stderr).toBe('');
  });
});
