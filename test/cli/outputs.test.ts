/**
 * The CLI's outputs and comparisons against a real PgBouncer (transaction pooling) and the
 * PostgreSQL behind it: JSON, JUnit and Markdown files, the run history, progress and quiet
 * mode, `--expect`, `pooltest diff` and `--compare`, with their exit codes. No file ever holds
 * the password.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { runCli } from '../support/cli.js';
import { assertValidReport } from '../support/report-schema.js';

describe('pooltest outputs, history, expectations and comparisons', () => {
  let stack: Stack;
  let dir: string;
  const only = ['--only', 'session/set-leak,session/set-local'];
  beforeAll(async () => {
    stack = await startStack('pgbouncer-transaction');
    dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-outputs-'));
  });
  afterAll(async () => {
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const fresh = (name: string): string => {
    const d = path.join(dir, name);
    rmSync(d, { recursive: true, force: true });
    return d;
  };
  const everyFile = (root: string): string[] =>
    readdirSync(root, { recursive: true, encoding: 'utf8' })
      .map((f) => path.join(root, f))
      .filter((f) => statSync(f).isFile());

  /*
   * Each run against the pooler costs a CLI start, a discovery and a sweep (about 20 s on the
   * busy 2-core machine), so the runs below serve several tests each: the first run writes every
   * output and is also the first of the history and the pooled side of the diffs; the second,
   * in the same folder, moves latest and is the run folder `pooltest diff` reads. Each is made
   * once, by whichever test needs it first, so a test run alone (-t) still gets it.
   */
  const first = once(async () => {
    const cwd = fresh('outputs');
    const run = await runCli(
      [
        '--target',
        stack.target.url(),
        '--profile',
        'pgbouncer-transaction',
        ...only,
        '--json',
        'r/report.json',
        '--junit',
        'r/junit.xml',
        '--markdown',
        'r/report.md',
        '--html',
        'r/report.html',
      ],
      { cwd: makeDir(cwd) },
    );
    // What latest shows right after this run, before the second run moves it.
    const latest = path.join(cwd, '.pooltest/latest');
    const stored = lstatSync(latest, { throwIfNoEntry: false })?.isSymbolicLink()
      ? {
          link: readlinkSync(latest),
          files: readdirSync(latest).sort(),
          json: readFileSync(path.join(latest, 'report.json'), 'utf8'),
        }
      : null;
    return { cwd, run, stored, report: path.join(cwd, 'r/report.json') };
  });
  const second = once(async () => {
    const { cwd } = await first();
    const run = await runCli(['--target', stack.target.url(), ...only], { cwd });
    return { cwd, run };
  });

  test('--json, --junit, --markdown and --html write their files; the run is stored with a latest link; progress on stderr', async () => {
    const { cwd, run, stored } = await first();
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(cwd, 'r/report.html'), 'utf8')).toMatch(/^<!DOCTYPE html>[\s\S]*<svg class="seq"/);
    assertValidReport(JSON.parse(readFileSync(path.join(cwd, 'r/report.json'), 'utf8')));
    expect(XMLValidator.validate(readFileSync(path.join(cwd, 'r/junit.xml'), 'utf8'))).toBe(true);
    expect(readFileSync(path.join(cwd, 'r/report.md'), 'utf8')).toMatch(/^### pooltest: PgBouncer/);
    // Which check finishes first is Vitest's business; the count and what is left are ours.
    expect(run.stderr).toMatch(/\[1\/2\] session\/set-(leak: leaked|local: scoped) pass \(\d+ ms\), 1 left/);
    expect(run.stderr).toMatch(/\[2\/2\] session\/set-(leak: leaked|local: scoped) pass \(\d+ ms\), done/);
    expect(stored, 'latest is a symbolic link').not.toBeNull();
    expect(stored!.link).toMatch(/^runs\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/);
    expect(stored!.files).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md']);
    expect(stored!.json).toBe(readFileSync(path.join(cwd, 'r/report.json'), 'utf8'));
    for (const file of everyFile(cwd)) expect(readFileSync(file, 'utf8'), file).not.toContain(stack.target.password);
  });

  test('a second run moves latest', async () => {
    const { stored } = await first();
    const { cwd, run } = await second();
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(path.join(cwd, '.pooltest/runs'))).toHaveLength(2);
    expect(readlinkSync(path.join(cwd, '.pooltest/latest'))).not.toBe(stored?.link);
    expect(readFileSync(path.join(cwd, '.pooltest/.gitignore'), 'utf8')).toContain('*');
  });

  test('--quiet prints only the summary lines, and a line per observed break, and no progress; --no-store leaves no history', async () => {
    const none = makeDir(fresh('no-store'));
    const run = await runCli(['--target', stack.target.url(), ...only, '--quiet', '--no-store'], { cwd: none });
    expect(run.code).toBe(0);
    expect(existsSync(path.join(none, '.pooltest'))).toBe(false);
    const lines = run.stdout.trimEnd().split('\n');
    // Nothing asserted, so no FAIL lines; what breaks an application is still named, one line
    // each (session/set-leak leaks through this PgBouncer), then the sweep and the summary.
    expect(lines.slice(-2).map((l) => l.split(' ')[0])).toEqual(['Sweep:', 'Summary']);
    const breaks = lines.slice(0, -2);
    expect(breaks.length).toBeGreaterThan(0);
    for (const l of breaks)
      expect(l).toMatch(/^observed: BREAKS \([a-z]+\) [a-z]+\/[a-z-]+: [a-z-]+, nothing asserted: /);
    expect(breaks.join('\n')).toMatch(/session\/set-leak: leaked/);
    expect(run.stderr).toBe('');
  });

  test('--fail-on-breaks: the documented leak that passes its expectation fails the run, and JUnit shows it failed', async () => {
    const cwd = makeDir(fresh('fail-on-breaks'));
    const args = ['--target', stack.target.url(), '--profile', 'pgbouncer-transaction', '--only', 'session/set-leak'];
    const run = await runCli([...args, '--fail-on-breaks', '--junit', 'j.xml', '--no-store', '--quiet'], {
      cwd,
      json: true,
    });
    // Control: the same run without the flag is the first run above, which exits 0.
    expect((await first()).run.code).toBe(0);
    expect(run.code, run.stderr).toBe(1);
    expect(run.report?.summary).toMatchObject({ failOnBreaks: true, exitCode: 1, pass: 1 });
    expect(run.stdout).toMatch(
      /^Summary {2}1 check: 1 outcome breaks an application; 1 pass \(1 of them expected breaks\), .*exit 1$/m,
    );
    const xml = readFileSync(path.join(cwd, 'j.xml'), 'utf8');
    expect(xml).toMatch(/<testsuites [^>]*tests="2" failures="1" errors="0" skipped="0"/);
    expect(xml).toContain(
      '<failure type="breaks-application" message="leaked breaks an application written for a direct connection (correctness), as expected">',
    );
  });

  test('--expect: a vendor file asserts its own outcomes and fails the run when one differs', async () => {
    const file = path.join(dir, 'acme.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'acme',
        expect: { 'session/set-leak': { outcome: 'session', ref: 'https://acme.example/docs#set' } },
      }),
    );
    const run = await runCli(['--target', stack.target.url(), ...only, '--expect', file, '--no-store'], { json: true });
    expect(run.code).toBe(1);
    expect(run.report?.profile?.name).toBe('acme');
    expect(run.report?.checks.map((c) => [c.id, c.expected, c.verdict])).toEqual([
      ['session/set-leak', 'session', 'fail'],
      ['session/set-local', null, 'observed'],
    ]);
  });

  test('--expect with an unknown label stops before connecting, with EXPECTATIONS_INVALID', async () => {
    const file = path.join(dir, 'typo.json');
    writeFileSync(
      file,
      JSON.stringify({
        extends: 'pgbouncer-transaction',
        expect: { 'session/set-leak': { outcome: 'leak', ref: 'https://acme.example/docs' } },
      }),
    );
    const run = await runCli(['--target', '127.0.0.1:1', '--expect', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('pooltest: EXPECTATIONS_INVALID:');
    expect(run.stderr).toContain(
      '"leak" is not a label of this check; its labels: session, leaked, lost, tracked, pinned, rejected',
    );
    const both = await runCli(['--target', '127.0.0.1:1', '--expect', file, '--profile', 'direct']);
    expect(both.stderr).toContain('pooltest: BAD_ARGUMENTS: --expect and --profile both set expectations');
  });

  describe('comparing', () => {
    let direct: string;
    let pooled: string;
    beforeAll(async () => {
      direct = path.join(dir, 'direct.json');
      await runCli(['--target', stack.postgres.url(), ...only, '--no-store', '--json', direct]);
      // The pooled side is the first run's report: the same checks against the pooler. Its
      // profile changes only the NEW verdict column; the diff goes by outcomes.
      pooled = (await first()).report;
    });

    test('pooltest diff OLD NEW: side by side, breaks with advice, exit 1; the way back exits 0', async () => {
      const forward = await runCli([
        'diff',
        direct,
        pooled,
        '--markdown',
        path.join(dir, 'diff.md'),
        '--json',
        path.join(dir, 'diff.json'),
      ]);
      expect(forward.code).toBe(1);
      expect(forward.stdout).toMatch(/session\/set-leak\s+session\s+leaked\s+BREAKS/);
      expect(forward.stdout).toMatch(/session\/set-local\s+scoped\s+scoped\s+same/);
      expect(forward.stdout).toContain('advice: Use SET LOCAL');
      expect(JSON.parse(readFileSync(path.join(dir, 'diff.json'), 'utf8'))).toMatchObject({
        summary: { breaks: 1, same: 1, exitCode: 1 },
      });
      expect(readFileSync(path.join(dir, 'diff.md'), 'utf8')).toContain('❌ **breaks**');
      const back = await runCli(['diff', pooled, direct]);
      expect(back.code).toBe(0);
      expect(back.stdout).toMatch(/session\/set-leak\s+leaked\s+session\s+fixed/);
    });

    test('pooltest diff reads run folders and refuses what is not a report', async () => {
      // The second run's folder: the same checks against the pooler as the pooled report.
      const { cwd } = await second();
      const folder = await runCli(['diff', path.join(cwd, '.pooltest/latest'), pooled]);
      expect(folder.code).toBe(0);
      const bad = path.join(dir, 'not-a-report.json');
      writeFileSync(bad, JSON.stringify({ schemaVersion: 99, checks: [] }));
      const refused = await runCli(['diff', bad, pooled]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('pooltest: REPORT_INVALID:');
      expect(refused.stderr).toContain('schemaVersion is 99, expected one of 1, 2');
      const one = await runCli(['diff', pooled]);
      expect(one.stderr).toContain('pooltest: BAD_ARGUMENTS: pooltest diff takes two reports');
    });

    test('--compare runs the baseline too (host:port borrows the credentials) and gates on breaks', async () => {
      const cwd = makeDir(fresh('compare'));
      const run = await runCli(
        [
          '--target',
          stack.target.url(),
          '--compare',
          `127.0.0.1:${stack.postgres.port}`,
          ...only,
          '--markdown',
          'compare.md',
        ],
        { cwd, json: true },
      );
      expect(run.code).toBe(1);
      expect(run.report?.summary.exitCode).toBe(0);
      expect(run.stderr).toMatch(
        /baseline \[2\/2\] session\/set-[a-z]+: [a-z]+ observed: (BREAKS \(\w+\)|no break) \(\d+ ms\), done/,
      );
      expect(run.stdout).toMatch(/session\/set-leak\s+session\s+leaked\s+BREAKS/);
      // Piped (120 columns): the diff's advice is folded within the width, in full, never cut.
      const diffPart = run.stdout.slice(run.stdout.indexOf('pooltest diff'));
      for (const line of diffPart.split('\n')) expect(line.length, line).toBeLessThanOrEqual(120);
      expect(diffPart).not.toContain('…');
      const advice = run.report!.checks.find((c) => c.id === 'session/set-leak')!.advice!;
      expect(diffPart.replace(/\n {4,}/g, ' ')).toContain(`advice: ${advice}`);
      const stored = path.join(cwd, '.pooltest/latest');
      expect(readdirSync(stored).sort()).toEqual([
        'baseline.json',
        'diff.json',
        'junit.xml',
        'report.html',
        'report.json',
        'report.md',
      ]);
      const baseline = JSON.parse(readFileSync(path.join(stored, 'baseline.json'), 'utf8')) as unknown;
      assertValidReport(baseline);
      expect(baseline.discovery.mode).toBe('direct');
      expect(readFileSync(path.join(cwd, 'compare.md'), 'utf8')).toMatch(
        /^### pooltest diff: what changes for the application/,
      );
      for (const file of everyFile(cwd)) expect(readFileSync(file, 'utf8'), file).not.toContain(stack.target.password);
    });
  });

  test('--spawn names what it can start, and refuses to be combined with --target', async () => {
    const other = await runCli(['--spawn', 'pgcat']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      'pooltest: BAD_ARGUMENTS: --spawn: no container fixture for pgcat yet; available: pgbouncer',
    );
    const both = await runCli(['--spawn', 'pgbouncer', '--target', stack.target.url()]);
    expect(both.stderr).toContain('pooltest: BAD_ARGUMENTS: --spawn starts its own target');
  });
});

/** `make` run once, on the first call; every call gets its result. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** An empty folder at `d`, created afresh. */
function makeDir(d: string): string {
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, { recursive: true });
  return d;
}
