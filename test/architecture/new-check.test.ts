/**
 * Scaffolding a check and running the check pipeline on it, in a copy of the repository, so
 * that docs/writing-checks.md cannot drift from what the code needs: `npm run new-check` (the
 * built script, with the copy as its working folder) writes the files and runs `npm run docs`
 * (tsc, then the tables); the copy then passes the tests a check is held to (the docs' drift,
 * the labels and profiles, ids and files, the layers, the judges over the recordings, the new
 * judge test) and the new check's Vitest file runs through the built CLI against a real
 * PostgreSQL, asserting the one profile line the test adds. Only the generated files and that
 * line may have changed.
 *
 * Where the time goes (CPU seconds, measured on the shared 2-core machine): the generator's
 * `npm run docs` about 26 (its tsc build most of it; a full build is 20 to 28), the pipeline's
 * Vitest run about 7, the CLI run and the server a few. What keeps it down without proving
 * less: the repository's build is incremental (tsconfig.json), so the copy starts from the
 * repository's dist and build info and tsc re-checks only what the new files change (still the
 * whole program, strict, as `npm run build` does: 8 s of it is reading and binding the 700
 * files, which nothing avoids); the server starts while the copy builds, and the CLI run goes
 * beside the pipeline's tests, which need nothing of each other.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startPostgres, type PostgresFixture } from '../../fixtures/postgres-fixture.js';
import type { Report } from '../../engine/types.js';
import { REPO } from '../support/cli.js';

const ID = 'session/scaffold-example';
/** What `npm run new-check -- session/scaffold-example` writes and regenerates. */
const GENERATED = [
  'INTERPRETING.md',
  'README.md',
  'suites/session/index.ts',
  'suites/session/scaffold-example.check.ts',
  'suites/session/scaffold-example.test.ts',
  'test/judges/session-scaffold-example.test.ts',
];
/** The one line a developer adds by hand, in the profile of the fixture the test runs on. */
const PROFILE = 'profiles/direct.ts';
const PROFILE_ANCHOR = "    'session/lock-timeout-leak': { outcome: 'session', ref: PG_DOCS.set },\n";
const PROFILE_LINE = `    '${ID}': { outcome: 'session', ref: PG_DOCS.set },\n`;
/** The tests a check is held to (test/architecture and the unit tests over the catalogue). */
const PIPELINE_TESTS = [
  'test/architecture/generated-docs.test.ts',
  'test/architecture/check-contracts.test.ts',
  'test/architecture/check-ids.test.ts',
  'test/architecture/layers.test.ts',
  'test/profiles/labels.test.ts',
  'test/profiles/profiles.test.ts',
  'test/judges/golden.test.ts',
  'test/judges/session-scaffold-example.test.ts',
];
/** Guards against a hang, not a speed requirement: the build in the copy is most of it. */
const STEP_BOUND_MS = 240_000;

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

test(
  'npm run new-check scaffolds a check that passes the pipeline, changing only its files and one profile line',
  { timeout: 3 * STEP_BOUND_MS },
  async () => {
    // The developer's line in the profile of the fixture it is observed on.
    const profile = readFileSync(path.join(copy, PROFILE), 'utf8');
    expect(profile).toContain(PROFILE_ANCHOR);
    writeFileSync(path.join(copy, PROFILE), profile.replace(PROFILE_ANCHOR, PROFILE_ANCHOR + PROFILE_LINE));

    const generated = await exec(process.execPath, [path.join(REPO, 'dist/scripts/new-check.js'), ID], copy);
    expect(generated.code, generated.output).toBe(0);
    expect(generated.output).toContain('regenerated README.md and INTERPRETING.md');

    // The pipeline's tests and the CLI run need nothing of each other: side by side.
    const tests = exec(
      process.execPath,
      [path.join(copy, 'node_modules/vitest/vitest.mjs'), 'run', ...PIPELINE_TESTS],
      copy,
    );

    // The check's Vitest file, through the copy's built CLI, under the direct profile.
    // Outside the copy, so the report and the run history (.pooltest/) are no change to it.
    const server = await pgStarting!;
    const cliDir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-new-check-cli-'));
    const out = path.join(cliDir, 'report.json');
    const cli = await exec(
      process.execPath,
      [
        path.join(copy, 'dist/cli/main.js'),
        '--target',
        server.url(),
        '--direct',
        server.url(),
        '--profile',
        'direct',
        '--only',
        ID,
        '--json',
        out,
      ],
      cliDir,
    );
    const pipeline = await tests;
    expect(pipeline.code, pipeline.output).toBe(0);
    // Every file ran: a file filter that matched nothing would pass with no tests at all.
    expect(pipeline.output).toMatch(new RegExp(`Test Files\\s+${PIPELINE_TESTS.length} passed`));
    try {
      expect(cli.code, cli.output).toBe(0);
      const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
      const check = report.checks.find((c) => c.id === ID);
      expect(check, cli.output).toMatchObject({ outcome: 'session', verdict: 'pass', expected: 'session' });
      expect(report.sweep?.clean).toBe(true);
    } finally {
      rmSync(cliDir, { recursive: true, force: true });
    }

    const changed = changedFiles(before, snapshot(copy));
    expect(changed).toEqual([...GENERATED, PROFILE].sort());
    // docs/writing-checks.md lists exactly these, as patterns.
    expect(documentedFiles()).toEqual(
      changed
        .map((f) =>
          f === PROFILE
            ? 'profiles/*.ts'
            : f
                .replace('session-scaffold-example', '<area>-<name>')
                .replace('session/scaffold-example', '<area>/<name>')
                .replace('suites/session/', 'suites/<area>/'),
        )
        .sort(),
    );
  },
);

/** The first column of docs/writing-checks.md's table of the files a new check touches. */
function documentedFiles(): string[] {
  const doc = readFileSync(path.join(REPO, 'docs/writing-checks.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## The files a new check touches'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('|')));
  return table
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => [...l.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!))
    .sort();
}
