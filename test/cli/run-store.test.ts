/**
 * The run history on disk: one folder per run named by its start time, `latest` moved to the
 * newest, and two runs started in the same millisecond kept apart.
 */
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { folderName, storeRun } from '../../cli/run-store.js';

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
