/**
 * `--list` and `--list-profiles` (issue 20): the docs send readers to `pooltest --list` for the
 * outcome labels, `--list --json FILE` was silently ignored, and one profile could not be shown.
 * In process: nothing here connects.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parseCli } from '../../cli/args.js';
import { listCommand } from '../../cli/list-command.js';
import { PooltestError } from '../../engine/record/errors.js';
import { CATALOGUE } from '../../suites/catalogue.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-lists-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function list(args: string[]): { code: number; out: string } {
  let out = '';
  const code = listCommand(parseCli(args), (t) => (out += t));
  return { code, out };
}

function codeOf(args: string[]): string | null {
  try {
    list(args);
    return null;
  } catch (e) {
    return e instanceof PooltestError ? e.code : String(e);
  }
}

describe('--list', () => {
  test("names every check's outcome labels, the breaking ones apart", () => {
    const { code, out } = list(['--list']);
    expect(code).toBe(0);
    for (const c of CATALOGUE)
      for (const label of Object.keys(c.outcomes))
        expect(out, `${c.id}: ${label}`).toMatch(new RegExp(`\\b${label}\\b`));
    expect(out).toMatch(/locks\/advisory-session.*\n\s+outcomes: exclusive; breaks: shared, released, rejected/);
  });
  test('--verbose adds what each label means; --only narrows the list', () => {
    const { out } = list(['--list', '--verbose', '--only', 'notify']);
    expect(out).toContain('misrouted: the notification reached a client that never listened');
    expect(out).not.toContain('session/set-leak');
  });
  test('--json FILE writes the same as JSON, with every label and whether it breaks', () => {
    const file = path.join(dir, 'list.json');
    const { out } = list(['--list', '--json', file]);
    expect(out).toContain(file);
    const json = JSON.parse(readFileSync(file, 'utf8')) as {
      checks: { id: string; outcomes: Record<string, { breaks: boolean }> }[];
    };
    expect(json.checks.map((c) => c.id)).toEqual(CATALOGUE.map((c) => c.id));
    expect(json.checks.find((c) => c.id === 'notify/listen')?.outcomes.misrouted?.breaks).toBe(true);
  });
  test('the other output files are refused, not silently ignored', () => {
    expect(codeOf(['--list', '--junit', path.join(dir, 'j.xml')])).toBe('BAD_ARGUMENTS');
    expect(codeOf(['--list', '--markdown', path.join(dir, 'm.md')])).toBe('BAD_ARGUMENTS');
    expect(codeOf(['--list', '--list-profiles'])).toBe('BAD_ARGUMENTS');
  });
});

describe('--list-profiles', () => {
  test('NAME shows that profile only', () => {
    const { out } = list(['--list-profiles', 'pgpool']);
    expect(out).toMatch(/^pgpool: /);
    expect(out).not.toContain('pgbouncer-transaction:');
  });
  test('an unknown NAME is refused with the known ones; a second name or a stray argument too', () => {
    expect(codeOf(['--list-profiles', 'pgbouncer-transactoin'])).toBe('UNKNOWN_PROFILE');
    expect(codeOf(['--list-profiles', 'pgpool', 'direct'])).toBe('BAD_ARGUMENTS');
    expect(() => parseCli(['pgpool'])).toThrow(/only --list-profiles takes a name/);
  });
  test('without NAME, every profile; --json writes them', () => {
    expect(list(['--list-profiles']).out).toContain('pgbouncer-transaction:');
    const file = path.join(dir, 'profiles.json');
    list(['--list-profiles', 'direct', '--json', file]);
    expect(
      (JSON.parse(readFileSync(file, 'utf8')) as { profiles: { name: string }[] }).profiles.map((p) => p.name),
    ).toEqual(['direct']);
  });
});
