/**
 * Adding a check as a person would, in a copy of the repository, so that docs/writing-checks.md
 * cannot drift from what the code needs, and counting the files a person edits by hand:
 * 1. `npm run new-check -- demo/probe` (the built script, with the copy as its working folder)
 *    writes the check, its Vitest entry and judge test, creates the new area `demo` (its
 *    index.ts and its place in suites/catalogue.ts) and runs `npm run docs`;
 * 2. by hand: the check file (its scenario and judge) and its judge test;
 * 3. the recording, as `npm run record -- test/recorded demo/probe` stores it (the real
 *    storeRecording and afterRecording of the copy's build): each fixture's recorded steps of
 *    session/set-leak, whose SQL the generated check mirrors on a setting of its own, read as
 *    this check's and judged by its judge. Running the five fixtures here would cost minutes and
 *    prove the recorder, which `npm run record` itself does; what is at stake is what follows;
 * 4. `npm run docs` again; then the tests a check is held to (the docs' drift, labels, profiles
 *    and the table derived from the recordings, ids, step tags, layers, the judges over the
 *    recordings, the new judge test) and the new check through the built CLI against a real
 *    PostgreSQL under the direct profile, which now expects what the recording showed.
 * Every changed file must come from a tool step or the hand step, the hand step may change at
 * most three files, and the docs' table of files must say the same.
 *
 * Time (CPU seconds, shared 2-core machine): each `npm run docs` about 26 (its tsc build), the
 * pipeline's Vitest run about 7. The copy starts from the repository's dist and build info, so
 * tsc re-checks only what changed (still the whole program, strict); the server starts while
 * the copy builds, and the CLI run goes beside the pipeline's tests.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import type { Report } from '../../engine/types.js';
import { REPO } from '../support/cli.js';

const ID = 'demo/probe';
/** What the generator writes (a new area: its index.ts and its place in the catalogue) and regenerates. */
const GENERATED = [
  'INTERPRETING.md',
  'README.md',
  'suites/catalogue.ts',
  'suites/demo/index.ts',
  'suites/demo/probe.check.ts',
  'suites/demo/probe.test.ts',
  'test/judges/demo-probe.test.ts',
];
/** What a person writes by hand: the scenario and judge, and the judge's own test. */
const BY_HAND = ['suites/demo/probe.check.ts', 'test/judges/demo-probe.test.ts'];
/** What the recorder writes: the runs on the five fixtures, and the outcomes derived from them. */
const RECORDED = [
  'profiles/fixture-outcomes.ts',
  'test/recorded/direct.json',
  'test/recorded/pgbouncer-session.json',
  'test/recorded/pgbouncer-statement.json',
  'test/recorded/pgbouncer-transaction.json',
  'test/recorded/pgpool.json',
];
/** What session/set-leak's recorded runs read as for the generated check, fixture by fixture. */
const OUTCOMES = {
  direct: 'session',
  'pgbouncer-transaction': 'leaked',
  'pgbouncer-session': 'session',
  'pgbouncer-statement': 'leaked',
  pgpool: 'session',
};
/** The tests a check is held to (test/architecture and the unit tests over the catalogue). */
const PIPELINE_TESTS = [
  'test/architecture/generated-docs.test.ts',
  'test/architecture/check-contracts.test.ts',
  'test/architecture/check-ids.test.ts',
  'test/architecture/layers.test.ts',
  'test/architecture/step-tags.test.ts',
  'test/profiles/labels.test.ts',
  'test/profiles/profiles.test.ts',
  'test/profiles/fixture-outcomes.test.ts',
  'test/profiles/verified-expectations.test.ts',
  'test/profiles/observed-profiles.test.ts',
  'test/judges/golden.test.ts',
  'test/judges/rejudge.test.ts',
  'test/judges/demo-probe.test.ts',
];
/**
 * Guards against a hang, not a speed requirement: the build in the copy is most of it. At a
 * load of 16 on the shared 2-core machine the generator alone (its `npm run docs`) passed 240 s
 * twice, killed after writing the docs.
 */
const STEP_BOUND_MS = 480_000;

let copy: string;
let before: Map<string, string>;

/** Content hashes of the copy's files, by relative path (node_modules and dist left out). */
function snapshot(root: string, dir = root, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const rel = path.relative(root, full);
    if (rel === 'node_modules' || rel === 'dist' || rel === '.pooltest') continue;
    if (statSync(full).isDirectory()) snapshot(root, full, out);
    else out.set(rel, createHash('sha256').update(readFileSync(full)).digest('hex'));
  }
  return out;
}

function changedFiles(a: Map<string, string>, b: Map<string, string>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].filter((f) => a.get(f) !== b.get(f)).sort();
}

/** Runs a child to its end; the output is kept for the failure message. */
function exec(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  // A Vitest run inside this one must not think it is a worker of ours.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), STEP_BOUND_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

let pgStarting: Promise<PostgresFixture> | undefined;

beforeAll(() => {
  copy = mkdtempSync(path.join(os.tmpdir(), 'pooltest-new-check-'));
  // dist comes along: with its build info (dist/tsconfig.tsbuildinfo) the copy's build is
  // incremental from the repository's. tsc compares sources by content, so a repository built
  // from other sources than it holds only makes the copy's build check more, never less.
  const top = new Set(['node_modules', '.git', '.pooltest']);
  cpSync(REPO, copy, { recursive: true, filter: (src) => !top.has(path.relative(REPO, src).split(path.sep)[0]!) });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(copy, 'node_modules'));
  before = snapshot(copy);
  // The server starts while the copy builds; the test awaits it before the CLI run.
  pgStarting = startPostgres();
  pgStarting.catch(() => undefined); // awaited (and its failure reported) by the test
}, STEP_BOUND_MS);

afterAll(async () => {
  await pgStarting?.then((p) => p.stop()).catch(() => undefined);
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/**
 * The recorder's part, run in the copy with the copy's own build: each fixture's recorded
 * session/set-leak steps, their marker read as the generated check's (`setting`), judged by the
 * generated check and stored as `npm run record -- test/recorded demo/probe` stores a run.
 */
function recordScript(copy: string): string {
  const built = (rel: string) => JSON.stringify(pathToFileURL(path.join(copy, 'dist', rel)).href);
  return `
import { readFileSync } from 'node:fs';
import { storeRecording } from ${built('bench/recording-file.js')};
import { afterRecording, RECORDED_FIXTURES } from ${built('bench/fixture-outcomes-file.js')};
import { probe } from ${built('suites/demo/probe.check.js')};
const outcomes = {};
for (const fixture of RECORDED_FIXTURES) {
  const file = 'test/recorded/' + fixture + '.json';
  const { discovery, checks } = JSON.parse(readFileSync(file, 'utf8'));
  const steps = checks['session/set-leak'].steps.map((s) =>
    s.tag === 'run.markers' ? { ...s, results: [[{ setting: s.results[0][0].statement_timeout }]] } : s,
  );
  const outcome = probe.judge(steps, { ...discovery, steps: [] }).outcome;
  outcomes[fixture] = outcome;
  storeRecording(file, fixture, discovery, { [probe.id]: { outcome, steps } }, true);
}
afterRecording('test/recorded');
process.stdout.write(JSON.stringify(outcomes) + '\\n');
`;
}

/** A person's edit: `text` in place of `from` in the copy's `file`, which must hold it. */
function byHand(file: string, from: string, text: string): void {
  const full = path.join(copy, file);
  const before = readFileSync(full, 'utf8');
  expect(before, file).toContain(from);
  writeFileSync(full, before.replace(from, text));
}

test(
  'npm run new-check -- demo/probe makes a new area and a check that passes the pipeline once its scenario, judge and recording exist, with two files edited by hand',
  { timeout: 4 * STEP_BOUND_MS },
  async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'pooltest-new-check-cli-'));
    try {
      // 1. The generator, then what it changed.
      const generated = await exec(process.execPath, [path.join(REPO, 'dist/scripts/new-check.js'), ID], copy);
      expect(generated.code, generated.output).toBe(0);
      expect(generated.output).toContain('regenerated README.md and INTERPRETING.md');
      const afterGenerator = snapshot(copy);
      expect(changedFiles(before, afterGenerator)).toEqual(GENERATED);

      // 2. By hand: the scenario and judge are the generated state check's (they work); a
      // person says what the check is about in its file, and what its judge test covers.
      byHand(
        'suites/demo/probe.check.ts',
        "title: 'TODO: a custom setting stays with the client that set it',",
        "title: 'A custom setting of the probe stays with the client that set it',",
      );
      byHand(
        'test/judges/demo-probe.test.ts',
        ' * `npm run new-check`.',
        ' * `npm run new-check`, read by a person: the state scenario over a setting of its own.',
      );
      const afterHand = snapshot(copy);
      const hand = changedFiles(afterGenerator, afterHand);
      expect(hand).toEqual(BY_HAND);
      expect(hand.length).toBeLessThanOrEqual(3);

      // 3. The recording, as the recorder stores it; its outcomes are the generated judge's.
      const script = path.join(scratch, 'record.mjs');
      writeFileSync(script, recordScript(copy));
      const recorded = await exec(process.execPath, [script], copy);
      expect(recorded.code, recorded.output).toBe(0);
      expect(recorded.output).toContain('rewrote profiles/fixture-outcomes.ts from test/recorded');
      expect(JSON.parse(recorded.output.trim().split('\n').pop()!)).toEqual(OUTCOMES);
      const afterRecord = snapshot(copy);
      expect(changedFiles(afterHand, afterRecord)).toEqual(RECORDED);
      // Stated once, by the recording: the derived table has the check on every fixture.
      const table = readFileSync(path.join(copy, 'profiles/fixture-outcomes.ts'), 'utf8');
      expect(table.match(new RegExp(`'${ID}': '(session|leaked)',`, 'g'))).toHaveLength(5);

      // 4. The docs again (a build and the tables), then the pipeline and the CLI run.
      const docs = await exec('npm', ['run', '--silent', 'docs'], copy);
      expect(docs.code, docs.output).toBe(0);
      const afterDocs = snapshot(copy);
      expect(changedFiles(afterRecord, afterDocs).filter((f) => !['README.md', 'INTERPRETING.md'].includes(f))).toEqual(
        [],
      );

      // The pipeline's tests and the CLI run need nothing of each other: side by side.
      const tests = exec(
        process.execPath,
        [path.join(copy, 'node_modules/vitest/vitest.mjs'), 'run', ...PIPELINE_TESTS],
        copy,
      );
      // Through the copy's built CLI, under the direct profile, which now expects what the
      // recording showed. Outside the copy, so the report and the run history are no change to it.
      const server = await pgStarting!;
      const out = path.join(scratch, 'report.json');
      const cli = await exec(
        process.execPath,
        [
          path.join(copy, 'dist/cli/main.js'),
          ...['--target', server.url(), '--direct', server.url(), '--profile', 'direct', '--only', ID, '--json', out],
        ],
        scratch,
      );
      const pipeline = await tests;
      expect(pipeline.code, pipeline.output).toBe(0);
      // Every file ran: a file filter that matched nothing would pass with no tests at all.
      expect(pipeline.output).toMatch(new RegExp(`Test Files\\s+${PIPELINE_TESTS.length} passed`));
      expect(cli.code, cli.output).toBe(0);
      const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
      expect(
        report.checks.find((c) => c.id === ID),
        cli.output,
      ).toMatchObject({
        outcome: 'session',
        verdict: 'pass',
        expected: 'session',
        expectedBasis: 'observed',
      });
      expect(report.sweep?.clean).toBe(true);

      // Every change is a tool's or the person's, and the docs list exactly these files, and who.
      const changed = changedFiles(before, snapshot(copy));
      expect(changed).toEqual([...new Set([...GENERATED, ...RECORDED])].sort());
      const documented = documentedFiles();
      expect(documented.map((r) => r.file).sort()).toEqual([...new Set(changed.map(asPattern))].sort());
      expect(documented.filter((r) => r.byHand).map((r) => r.file)).toEqual(BY_HAND.map(asPattern));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
);

/** A changed file as docs/writing-checks.md names it. */
function asPattern(file: string): string {
  return file
    .replace('demo-probe', '<area>-<name>')
    .replace('suites/demo/probe', 'suites/<area>/<name>')
    .replace('suites/demo/', 'suites/<area>/')
    .replace(/^test\/recorded\/[a-z-]+\.json$/, 'test/recorded/<fixture>.json');
}

/**
 * The rows of docs/writing-checks.md's table of the files a new check touches: each file of the
 * first column, and whether its second column says a person edits it ("you").
 */
function documentedFiles(): { file: string; byHand: boolean }[] {
  const doc = readFileSync(path.join(REPO, 'docs/writing-checks.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## The files a new check touches'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('|')));
  return table
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => {
      const [, files, who] = l.split('|');
      return [...files!.matchAll(/`([^`]+)`/g)].map((m) => ({ file: m[1]!, byHand: /\byou\b/.test(who!) }));
    });
}
