/**
 * `node dist/bench/speed/floor-main.js URL`: starts Vitest the way pooltest's runner does
 * (inline config, threads, no isolation, a silent reporter) on floor-probe.test.js and exits
 * 0 when its one query worked. The benchmark times this process from spawn to exit.
 */
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: floor-main URL\n');
  process.exit(2);
}
const { startVitest } = await import('vitest/node');
const root = path.dirname(fileURLToPath(import.meta.url));
let passed = false;
const collector = {
  onTestCaseResult(testCase: { result(): { state: string } }) {
    passed = testCase.result().state === 'passed';
  },
};
const sink = new Writable({ write: (_c, _e, cb) => cb() });
const vitest = await startVitest(
  'test',
  [],
  {
    root,
    config: false,
    watch: false,
    include: ['floor-probe.test.js'],
    reporters: [collector],
    provide: { floorUrl: url },
    fileParallelism: false,
    maxWorkers: 1,
    pool: 'threads',
    isolate: false,
    silent: true,
  },
  { cacheDir: path.join(os.tmpdir(), 'pooltest-vite-cache') },
  { stdout: sink, stderr: sink },
);
await vitest?.close();
process.exitCode = passed ? 0 : 1;
