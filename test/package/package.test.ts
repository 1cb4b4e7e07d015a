/**
 * The published package as a user meets it: the tarball `npm pack` makes, installed into an
 * empty project with `npm install <tgz>` (what `npx pooltest` does in its cache), then used
 * three ways against a real PgBouncer: the CLI, the library API example, and the Vitest route
 * example from docs/library.md. testcontainers is not installed there, which also proves that a
 * run without --spawn never needs it.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { REPO } from '../support/cli.js';
import { assertValidReport } from '../support/report-schema.js';
import { exec, type Exec } from './exec.js';

const EXAMPLES = path.join(REPO, 'examples/library');

describe('the packed pooltest, installed in an empty project', () => {
  let work: string;
  let tgz: string;
  let project: string;
  let stack: Stack;
  let stackStarting: Promise<Stack> | undefined;
  /** publint's and attw's verdicts on the tarball, started as soon as it exists. */
  let linted: Promise<[Exec, Exec]>;

  beforeAll(async () => {
    // The stack starts while npm packs and installs (it needs neither), and the tarball's
    // linters run during the install: each of the three mostly waits on its own processes,
    // and one after the other they were the first half of this file's time.
    stackStarting = startStack('pgbouncer-transaction');
    stackStarting.catch(() => undefined);
    work = mkdtempSync(path.join(os.tmpdir(), 'pooltest-package-'));
    // --ignore-scripts: pack the dist this test run built instead of rebuilding it mid-run.
    const pack = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: REPO });
    expect(pack.code, pack.stderr).toBe(0);
    tgz = path.join(work, (JSON.parse(pack.stdout) as Array<{ filename: string }>)[0]!.filename);
    linted = Promise.all([
      exec(path.join(REPO, 'node_modules/.bin/publint'), ['--strict', tgz], { cwd: REPO }),
      // ESM only by design (Node >= 20.19): CommonJS resolution modes are not applicable.
      exec(path.join(REPO, 'node_modules/.bin/attw'), [tgz, '--profile', 'esm-only'], { cwd: REPO }),
    ]);
    project = path.join(work, 'project');
    mkdirSync(project);
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    // --prefer-offline: the dependencies' registry metadata comes from npm's cache where it has
    // it (npm ci filled it with the same packages) instead of one revalidating request per
    // package: 16 s against 25 s on the shared machine, the same 54 packages in the same tree.
    // What this file proves is about the tarball (it installs into an empty project and works
    // there), and a package the cache lacks is still fetched from the registry.
    const install = await exec('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tgz], {
      cwd: project,
      timeoutMs: 280_000,
    });
    expect(install.code, install.stderr).toBe(0);
    stack = await stackStarting;
  }, 300_000);
  afterAll(async () => {
    // Awaited even when the hook failed before taking it: the stack is stopped either way.
    await (await stackStarting?.catch(() => undefined))?.stop();
    await linted?.catch(() => undefined);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('the tarball holds what a user needs and nothing from development', async () => {
    const list = await exec('tar', ['-tzf', tgz], { cwd: work });
    const files = list.stdout
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    for (const needed of [
      'package.json',
      'README.md',
      'INTERPRETING.md',
      'schema/report.schema.json',
      'dist/runner/index.js',
      'dist/runner/index.d.ts',
      'dist/cli/main.js',
      'dist/runner/vitest-project.js',
      'dist/runner/vitest-setup.js',
      'dist/runner/vitest-worker-setup.js',
      'dist/suites/session/set-leak.test.js',
      'dist/fixtures/stack.js',
    ]) {
      expect(files).toContain(needed);
    }
    expect(
      files.filter(
        (f) =>
          /^(test|engine|suites|scratch|bench|dist\/bench)\//.test(f) ||
          f.endsWith('.map') ||
          (f.endsWith('.ts') && !f.endsWith('.d.ts')),
      ),
    ).toEqual([]);
  });

  test('installing it brings no testcontainers', () => {
    expect(existsSync(path.join(project, 'node_modules/pooltest/package.json'))).toBe(true);
    expect(existsSync(path.join(project, 'node_modules/testcontainers'))).toBe(false);
    expect(existsSync(path.join(project, 'node_modules/@testcontainers'))).toBe(false);
  });

  test('npx pooltest --help and --version answer', async () => {
    const help = await exec('npx', ['pooltest', '--help'], { cwd: project });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: pooltest');
    const version = await exec('npx', ['pooltest', '--version'], { cwd: project });
    expect(version.stdout.trim()).toBe(
      (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version,
    );
  });

  test('npx pooltest runs against a real PgBouncer, writes every output and stores the run, without the password', async () => {
    const { target } = stack;
    const run = await exec(
      'npx',
      [
        'pooltest',
        '--target',
        target.url(),
        '--profile',
        'pgbouncer-transaction',
        '--only',
        'session/set-leak,locks',
        '--json',
        'out/report.json',
        '--junit',
        'out/junit.xml',
        '--markdown',
        'out/report.md',
      ],
      { cwd: project },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(path.join(project, 'out/report.json'), 'utf8')) as unknown;
    assertValidReport(report);
    expect(report.checks.find((c) => c.id === 'session/set-leak')?.outcome).toBe('leaked');
    const stored = path.join(project, '.pooltest/latest');
    expect(readdirSync(stored).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md']);
    for (const file of [...filesUnder(path.join(project, 'out')), ...filesUnder(path.join(project, '.pooltest'))]) {
      expect(readFileSync(file, 'utf8'), file).not.toContain(target.password);
    }
    expect(run.stdout + run.stderr).not.toContain(target.password);
  });

  test('--spawn without testcontainers installed says how to install it', async () => {
    const run = await exec('npx', ['pooltest', '--spawn', 'pgbouncer'], { cwd: project });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('pooltest: FIXTURE_UNAVAILABLE:');
    expect(run.stderr).toContain('npm install testcontainers@12.0.1 @testcontainers/postgresql@12.0.1');
  });

  test('the library example (examples/library/run-api.mjs) runs and gates', async () => {
    writeFileSync(path.join(project, 'run-api.mjs'), readFileSync(path.join(EXAMPLES, 'run-api.mjs')));
    const run = await exec('node', ['run-api.mjs'], { cwd: project, env: { POOLTEST_TARGET: stack.target.url() } });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('session/set-leak: leaked (pass)');
    expect(run.stdout).toMatch(/(\d+) of \1 checks as expected, 0 observed; exit 0/);
    expect(readFileSync(path.join(project, 'pooltest.md'), 'utf8')).toContain('| `session/set-leak`');
    expect(readFileSync(path.join(project, 'pooltest.junit.xml'), 'utf8')).toContain(
      '<testcase classname="pooltest.session" name="session/set-leak"',
    );
  });

  describe('the Vitest route (examples/library/vitest*.config.mjs)', () => {
    const runVitest = async (profile: string, config = 'vitest.config.mjs') => {
      writeFileSync(path.join(project, config), readFileSync(path.join(EXAMPLES, config)));
      const out = path.join(project, `vitest-${profile}.json`);
      const run = await exec(
        'npx',
        ['vitest', 'run', '--config', config, '--reporter=json', `--outputFile=${out}`, 'set-leak', 'advisory-session'],
        {
          cwd: project,
          env: { POOLTEST_TARGET: stack.target.url(), POOLTEST_PROFILE: profile },
        },
      );
      const json = JSON.parse(readFileSync(out, 'utf8')) as VitestJson;
      const tests = json.testResults.flatMap((f) => f.assertionResults);
      return { run, tests };
    };

    test("the checks run as tests of the vendor's Vitest and pass against the matching profile", async () => {
      const { run, tests } = await runVitest('pgbouncer-transaction');
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(tests.map((t) => [t.title.split(':')[0], t.status]).sort()).toEqual([
        ['locks/advisory-session', 'passed'],
        ['session/set-leak', 'passed'],
      ]);
      expect(tests.find((t) => t.title.startsWith('session/set-leak'))?.meta.pooltest?.outcome).toBe('leaked');
    });

    test('the written-out project (no helper) finds the same suites', async () => {
      const { run, tests } = await runVitest('pgbouncer-transaction', 'vitest.manual.config.mjs');
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(tests.map((t) => t.status)).toEqual(['passed', 'passed']);
    });

    test("a wrong expectation fails the vendor's run (control)", async () => {
      const { run, tests } = await runVitest('direct');
      expect(run.code).toBe(1);
      const setLeak = tests.find((t) => t.title.startsWith('session/set-leak'));
      expect(setLeak?.status).toBe('failed');
      expect(setLeak?.failureMessages.join('\n')).toContain('observed "leaked", expected "session"');
    });
  });

  test('the docs show the examples verbatim', () => {
    const library = readFileSync(path.join(REPO, 'docs/library.md'), 'utf8');
    for (const file of readdirSync(EXAMPLES))
      expect(library, file).toContain(readFileSync(path.join(EXAMPLES, file), 'utf8').trimEnd());
    const actions = readFileSync(path.join(REPO, 'docs/github-actions.md'), 'utf8');
    expect(actions).toContain(readFileSync(path.join(REPO, 'examples/github-actions/pooltest.yml'), 'utf8').trimEnd());
    expect(actions).toContain(
      readFileSync(path.join(REPO, 'examples/github-actions/pooltest-matrix.yml'), 'utf8').trimEnd(),
    );
  });

  test('publint and arethetypeswrong accept the tarball', async () => {
    const [publint, attw] = await linted;
    expect(publint.code, publint.stdout + publint.stderr).toBe(0);
    expect(attw.code, attw.stdout + attw.stderr).toBe(0);
  });
});

interface VitestJson {
  testResults: Array<{
    assertionResults: Array<{
      title: string;
      status: string;
      failureMessages: string[];
      meta: { pooltest?: { outcome: string | null } };
    }>;
  }>;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile());
}
