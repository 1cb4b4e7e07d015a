/**
 * The run history on disk: one folder per run named by its start time, `latest` moved to the
 * newest, two runs started in the same millisecond kept apart, and only the newest runs kept
 * (the history had grown without limit).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { folderName, KEEP_RUNS, storeRun } from '../../cli/run-store.js';

const cwd = mkdtempSync(path.join(os.tmpdir(), 'pooltest-store-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

test('runs started in the same millisecond get their own folders, and latest follows the last', () => {
  const at = '2026-05-04T03:02:01.123Z';
  const first = storeRun({ 'report.json': '{"n":1}\n' }, at, cwd);
  const second = storeRun({ 'report.json': '{"n":2}\n' }, at, cwd);
  expect(path.basename(first.dir)).toBe('2026-05-04T03-02-01.123Z');
  expect(path.basename(second.dir)).toBe('2026-05-04T03-02-01.123Z-2');
  expect(second.latest).toBe('symlink');
  expect(readlinkSync(path.join(cwd, '.pooltest/latest'))).toBe('runs/2026-05-04T03-02-01.123Z-2');
  expect(readFileSync(path.join(cwd, '.pooltest/latest/report.json'), 'utf8')).toBe('{"n":2}\n');
});

test('folder names sort by time and hold no colons', () => {
  expect(folderName('2026-05-04T03:02:01.123Z')).toBe('2026-05-04T03-02-01.123Z');
  expect([folderName('2026-05-04T10:00:00.000Z'), folderName('2026-05-04T09:59:59.999Z')].sort()[0]).toBe(
    '2026-05-04T09-59-59.999Z',
  );
});

test(`the history keeps the newest ${KEEP_RUNS} runs and removes older run folders, nothing else`, () => {
  const own = mkdtempSync(path.join(os.tmpdir(), 'pooltest-store-prune-'));
  try {
    const runs = path.join(own, '.pooltest/runs');
    // A folder pooltest did not name stays, however old it looks.
    mkdirSync(path.join(runs, 'keep-me'), { recursive: true });
    const stamps = Array.from({ length: KEEP_RUNS + 5 }, (_, i) =>
      new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    );
    for (const at of stamps) storeRun({ 'report.json': `{"at":"${at}"}\n` }, at, own);
    // Same millisecond as the newest: `-2` sorts after it and is kept.
    storeRun({ 'report.json': '{}\n' }, stamps.at(-1)!, own);
    const left = readdirSync(runs).sort();
    expect(left).toContain('keep-me');
    const kept = left.filter((n) => n !== 'keep-me');
    expect(kept).toHaveLength(KEEP_RUNS);
    expect(kept.at(-1)).toBe(`${folderName(stamps.at(-1)!)}-2`);
    expect(kept[0]).toBe(folderName(stamps[6]!));
    expect(readlinkSync(path.join(own, '.pooltest/latest'))).toBe(`runs/${kept.at(-1)}`);
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
});
