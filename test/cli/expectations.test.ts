/**
 * A vendor's expectations file: validated in full before anything connects, with every problem
 * named and located, and turned into a profile that may extend a built-in one. Check ids this
 * version lacks are warned about and ignored (the file may be newer).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { isPooltestError, type PooltestError } from '../../engine/record/errors.js';
import { loadExpectations, parseExpectations } from '../../runner/expectations.js';
import { findProfile } from '../../profiles/index.js';
import { runCli } from '../support/cli.js';

const REF = 'https://acme.example/pooler/docs#session-state';

function problemOf(value: unknown): PooltestError {
  try {
    parseExpectations(value, 'acme.json', () => undefined);
  } catch (err) {
    if (isPooltestError(err)) return err;
    throw err;
  }
  throw new Error('expected the expectations to be rejected');
}

describe('expectations files', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-expect-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('extending a built-in profile: overrides win, null removes, the rest is inherited', () => {
    const base = findProfile('pgbouncer-transaction');
    const p = parseExpectations(
      {
        extends: 'pgbouncer-transaction',
        expect: { 'session/set-leak': { outcome: 'tracked', ref: REF, note: 'we replay SET' }, 'notify/listen': null },
      },
      '/ci/acme.json',
    );
    expect(p.name).toBe('pgbouncer-transaction+acme');
    expect(p.expect['session/set-leak']).toEqual({ outcome: 'tracked', ref: REF, note: 'we replay SET' });
    expect(p.expect['notify/listen']).toBeUndefined();
    expect(p.expect['locks/advisory-session']).toEqual(base.expect['locks/advisory-session']);
    expect(p).toMatchObject({ pooler: base.pooler, mode: base.mode, ref: base.ref });
  });

  test('standing alone, with a name, title and reference of its own', () => {
    const p = parseExpectations(
      {
        name: 'acme-2',
        title: 'Acme pooler 2.x',
        ref: REF,
        expect: { 'session/set-local': { outcome: 'scoped', ref: REF } },
      },
      'x.json',
    );
    expect(p).toMatchObject({
      name: 'acme-2',
      title: 'Acme pooler 2.x',
      ref: REF,
      pooler: 'custom',
      expect: { 'session/set-local': { outcome: 'scoped', ref: REF } },
    });
  });

  const invalid: Array<[string, unknown, string]> = [
    [
      'a label the check does not have',
      { expect: { 'session/set-local': { outcome: 'tracked', ref: REF } } },
      'expect["session/set-local"]: "tracked" is not a label of this check; its labels: scoped, leaked, rejected',
    ],
    [
      'a missing reference',
      { expect: { 'session/set-leak': { outcome: 'leaked' } } },
      'expect["session/set-leak"]: "ref" must point at',
    ],
    [
      'a reference that is not a URL or repository path',
      { expect: { 'session/set-leak': { outcome: 'leaked', ref: 'trust me' } } },
      '"ref" must point at',
    ],
    [
      'an unknown profile to extend',
      { extends: 'pgbouncer-tx', expect: {} },
      '"extends": unknown profile "pgbouncer-tx"; built-in profiles: direct, pgbouncer-transaction',
    ],
    ['a misspelt key', { expects: {} }, 'unknown key "expects"'],
    [
      'an entry with an extra key',
      { expect: { 'session/set-leak': { outcome: 'leaked', ref: REF, outcom: 'x' } } },
      'unknown key(s) "outcom"',
    ],
    ['not an object', ['session/set-leak'], 'must hold a JSON object'],
  ];
  test.each(invalid)('rejects %s with EXPECTATIONS_INVALID, saying where', (_name, value, message) => {
    const err = problemOf(value);
    expect(err.code).toBe('EXPECTATIONS_INVALID');
    expect(err.message).toContain(message);
    expect(err.message.startsWith('acme.json: ')).toBe(true);
  });

  test('lists every problem at once', () => {
    const err = problemOf({
      extends: 'nope',
      expect: { 'a/b': null, 'session/set-leak': { outcome: 'gone', ref: REF }, 'session/set-local': { outcome: 'x' } },
    });
    expect(err.message).toMatch(/^acme\.json: 3 problem\(s\):/);
  });

  // Such files were once documented as legal ("the file may be newer") yet refused before any
  // warning could be given: forward compatibility wins, and the warning names the ids.
  test('a check id this version does not have is warned about, by name, and ignored; the known ones still count', () => {
    const warnings: string[] = [];
    const p = parseExpectations(
      {
        expect: {
          'session/from-the-future': { outcome: 'whatever', ref: REF, since: '9.0' },
          'notify/later': null,
          'session/set-local': { outcome: 'scoped', ref: REF },
        },
      },
      'acme.json',
      (t) => warnings.push(t),
    );
    expect(p.expect).toEqual({ 'session/set-local': { outcome: 'scoped', ref: REF } });
    expect(warnings).toEqual([
      'pooltest: note: acme.json: this version has no check session/from-the-future, notify/later (see pooltest --list); those expectations are ignored',
    ]);
  });

  test('a known check id with a label it does not have stays EXPECTATIONS_INVALID, beside an unknown id', () => {
    const warnings: string[] = [];
    let err: unknown = null;
    try {
      parseExpectations(
        {
          expect: { 'session/nope': { outcome: 'x', ref: REF }, 'session/set-local': { outcome: 'tracked', ref: REF } },
        },
        'acme.json',
        (t) => warnings.push(t),
      );
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: 'EXPECTATIONS_INVALID',
      message: expect.stringContaining('"tracked" is not a label'),
    });
    expect((err as Error).message).not.toContain('session/nope');
  });

  test('through the CLI: the unknown id is a note on stderr, and the run goes on (here to the unreachable target)', async () => {
    const file = path.join(dir, 'newer.json');
    writeFileSync(file, JSON.stringify({ expect: { 'session/from-the-future': { outcome: 'x', ref: REF } } }));
    const r = await runCli(['--target', 'postgres://u@127.0.0.1:1/db', '--expect', file, '--no-store'], {
      timeoutMs: 30_000,
    });
    expect(r.stderr).toMatch(/pooltest: note: .*newer\.json: this version has no check session\/from-the-future/);
    expect(r.stderr).not.toContain('EXPECTATIONS_INVALID');
    expect(r.stderr).toMatch(/TARGET_REFUSED/);
    expect(r.code).toBe(2);
  });

  test('a file that is missing or not JSON is EXPECTATIONS_INVALID too', () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '{ "expect": ');
    expect(() => loadExpectations(bad)).toThrow(/is not valid JSON/);
    expect(() => loadExpectations(path.join(dir, 'none.json'))).toThrow(/cannot read expectations file/);
  });
});
