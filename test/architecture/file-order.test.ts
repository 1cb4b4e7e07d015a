/**
 * The order `npm test` starts its files in (scripts/file-order.ts): on a fresh clone, with no
 * durations cached by Vitest, the fixture files measured slowest start first however small the
 * file, so the two fixture workers do not end with one long file running alone.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { MEASURED_S, orderFiles, type FileToOrder } from '../../scripts/file-order.js';
import { testGroups } from '../../scripts/test-groups.js';
import { REPO } from '../support/cli.js';

const file = (f: string, size: number, extra: Partial<FileToOrder> = {}): FileToOrder => ({
  groupOrder: 1,
  project: 'fixtures',
  file: f,
  size,
  ...extra,
});

test('without a cache, a small file measured slow starts before a large one never measured', () => {
  const small = file('test/faults/fault-matrix-proxy.test.ts', 400);
  const large = file('test/cli/a-large-unmeasured.test.ts', 12_000);
  const tiny = file('test/cli/a-tiny-unmeasured.test.ts', 100);
  expect(orderFiles([tiny, large, small]).map((f) => f.file)).toEqual([small.file, large.file, tiny.file]);
});

test("Vitest's cached duration wins over the table, and a file that failed last time goes first", () => {
  const matrix = file('test/faults/fault-matrix-proxy.test.ts', 400, { cached: { failed: false, duration: 1_000 } });
  const cli = file('test/cli/cli.test.ts', 8_000, { cached: { failed: false, duration: 500_000 } });
  const failed = file('test/cli/pipes.test.ts', 3_000, { cached: { failed: true, duration: 10 } });
  expect(orderFiles([matrix, cli, failed]).map((f) => f.file)).toEqual([failed.file, cli.file, matrix.file]);
});

test('projects keep their order: no file leaves its group for a longer time', () => {
  const unit = file('test/judges/x.test.ts', 10, { groupOrder: 0, project: 'unit' });
  const timing = file('test/catalogue/catalogue.test.ts', 10, { groupOrder: 2, project: 'timing' });
  const slow = file('test/package/package.test.ts', 10);
  expect(orderFiles([timing, slow, unit]).map((f) => f.project)).toEqual(['unit', 'fixtures', 'timing']);
});

test('every file the table names exists and runs in a project two workers share (fixtures, timing)', () => {
  const groups = testGroups(REPO);
  const fixtures = [...groups.fixtures, ...groups.timing];
  const onDisk = new Set(
    readdirSync(path.join(REPO, 'test'), { recursive: true, encoding: 'utf8' }).map(
      (f) => `test/${f.split(path.sep).join('/')}`,
    ),
  );
  const named = Object.keys(MEASURED_S);
  expect(named.filter((f) => !onDisk.has(f))).toEqual([]);
  expect(named.filter((f) => !fixtures.includes(f))).toEqual([]);
});
