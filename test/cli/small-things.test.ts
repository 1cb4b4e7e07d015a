/**
 * Small things users hit, each named after what they saw: an invalid %-escape printed
 * `INTERNAL: URIError`, a terminal reporting 0 columns got one word per line, no password at
 * all got a SASL message, `--target ''` silently meant localhost:5432, "1 checks", and a
 * mistyped option got no suggestion.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { didYouMean } from '../../cli/args.js';
import { PooltestError } from '../../engine/record/errors.js';
import { resolveTarget } from '../../engine/target/target.js';
import { startStack, type Stack } from '../../fixtures/stack.js';
import { renderReport } from '../../reporters/terminal-reporter.js';
import { terminalWidth } from '../../reporters/terminal-text.js';
import { runCli } from '../support/cli.js';
import { pgbouncerReport } from '../reporters/samples.js';

function codeOf(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof PooltestError ? e.code : `not a PooltestError: ${String(e)}`;
  }
}

describe('what was typed', () => {
  test('a %ZZ escape in the URL is BAD_TARGET_URL naming the part, not INTERNAL: URIError, and never shows the password', async () => {
    for (const url of ['postgres://u:se%ZZcret@h:1/db', 'postgres://u%ZZ@h:1/db', 'postgres://u@h:1/d%ZZ'])
      expect(
        codeOf(() => resolveTarget({ target: url }, {})),
        url,
      ).toBe('BAD_TARGET_URL');
    const r = await runCli(['--target', 'postgres://u:se%ZZcret@127.0.0.1:1/db']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /BAD_TARGET_URL: the password in "postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db" has an invalid %-escape/,
    );
    expect(r.stderr).not.toMatch(/URIError|INTERNAL|se%ZZcret/);
  });

  test("--target '' is an error, not localhost:5432", async () => {
    expect(codeOf(() => resolveTarget({ target: '' }, {}))).toBe('BAD_TARGET_URL');
    for (const flag of ['--target', '--direct', '--compare']) {
      const r = await runCli([flag, '', ...(flag === '--target' ? [] : ['--target', '127.0.0.1:1'])]);
      expect(r.code, flag).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`BAD_ARGUMENTS: ${flag} is empty`));
    }
  });

  test('an unknown option gets the nearest real one, and nothing when none is near', async () => {
    const r = await runCli(['--tagret', '127.0.0.1:1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/BAD_ARGUMENTS: unknown option --tagret; did you mean --target\?/);
    expect(didYouMean('jsno', ['json', 'junit', 'target'])).toBe('json');
    expect(didYouMean('list-profile', ['list', 'list-profiles'])).toBe('list-profiles');
    expect(didYouMean('zzzzzz', ['json', 'junit', 'target'])).toBeNull();
  });
});

describe('what the terminal shows', () => {
  test('a terminal that reports 0 columns gets the default width, not one word per line', () => {
    expect(terminalWidth(0)).toBe(120);
    expect(terminalWidth(undefined)).toBe(120);
    expect(terminalWidth(10)).toBe(40);
    expect(terminalWidth(100)).toBe(100);
    const report = pgbouncerReport();
    expect(renderReport(report, { color: false, verbose: false, width: terminalWidth(0) })).toBe(
      renderReport(report, { color: false, verbose: false, width: 120 }),
    );
  });

  test('one check and one backend are "1 check" and "1 backend", not "1 checks" and "1 backends"', () => {
    const report = pgbouncerReport();
    report.checks = report.checks.slice(0, 1);
    report.summary = { ...report.summary, total: 1 };
    report.sweep = { clean: true, state: 'clean', backendsVisited: [4711], leftovers: [], via: ['target'] };
    const text = renderReport(report, { color: false, verbose: false, width: 120 });
    expect(text).toMatch(/Summary {2}1 check: /);
    expect(text).toMatch(/Sweep: clean \(1 backend visited via target\)/);
    expect(text).not.toMatch(/1 checks|1 backends/);
  });
});

describe('what diff --help says', () => {
  // It said "unknown: a side has no outcome", which a new user could not map to anything.
  test('each change kind on its own line; unknown says which outcomes it covers', async () => {
    const r = await runCli(['diff', '--help']);
    expect(r.code).toBe(0);
    for (const kind of ['breaks', 'fixed', 'same', 'changed', 'unknown'])
      expect(r.stdout).toMatch(new RegExp(`^  ${kind} +\\S`, 'm'));
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('(inconclusive, skipped or not run there)');
  });
});

describe('no password at all', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('direct');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('says that no password was given (as psql does), not a SASL message', async () => {
    const url = new URL(stack.target.url());
    url.password = '';
    const r = await runCli(['--target', url.href, '--only', 'session/set-leak']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/AUTH_FAILED: .* asks for a password and none was given: pass --password, set PGPASSWORD/);
    expect(r.stderr).not.toMatch(/SASL|SCRAM/);
  });

  // A run whose every check was skipped proved nothing: under --strict that is no green run.
  test('--strict with every check skipped exits 1 and says why; control: without --strict, exit 0', async () => {
    const fixtureOnly = ['--target', stack.target.url(), '--only', 'capacity/burst,auth/stale-password'];
    const strict = await runCli([...fixtureOnly, '--strict'], { json: true });
    expect(strict.report?.checks.map((c) => c.verdict)).toEqual(['skipped', 'skipped']);
    expect(strict.code, strict.stderr).toBe(1);
    expect(strict.stdout).toMatch(/--strict: every check was skipped, so the run proved nothing \(exit 1\)/);
    const plain = await runCli(fixtureOnly, { json: true });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).not.toMatch(/proved nothing \(exit 1\)/);
  });
});
