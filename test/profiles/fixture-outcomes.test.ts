/**
 * The fixtures' outcomes are stated once, by their recorded runs: profiles/fixture-outcomes.ts
 * must be exactly what the recorders derive from test/recorded (so nobody edits it by hand and
 * no recording goes unread), and the fixtures' profiles expect exactly those outcomes, less the
 * checks they leave out on purpose and those that need a fixture of their own.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as prettier from 'prettier';
import { afterAll, describe, expect, test } from 'vitest';
import { fixtureOutcomesText, FIXTURE_OUTCOMES_FILE } from '../../bench/fixture-outcomes-file.js';
import type { RecordedOutcomes } from '../../profiles/catalogue-profile.js';
import { FIXTURE_OUTCOMES } from '../../profiles/fixture-outcomes.js';
import { findProfile } from '../../profiles/index.js';
import { decidedOnly, observedOnFixture } from '../../profiles/observed-on-fixture.js';
import { REPO } from '../support/cli.js';

const RECORDED = path.join(REPO, 'test/recorded');
const REF = 'https://www.postgresql.org/docs/15/connect-estab.html';

/** A copy of the recordings to change, removed after the file. */
const scratch = mkdtempSync(path.join(os.tmpdir(), 'pooltest-fixture-outcomes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('profiles/fixture-outcomes.ts is what the recordings say, as the recorders write it', () => {
  expect(readFileSync(path.join(REPO, FIXTURE_OUTCOMES_FILE), 'utf8')).toBe(fixtureOutcomesText(RECORDED));
});

// The recorders write it without running prettier, and the repository's format test reads it.
test('the derived table is written as prettier would write it', async () => {
  const text = fixtureOutcomesText(RECORDED);
  const options = await prettier.resolveConfig(path.join(REPO, FIXTURE_OUTCOMES_FILE));
  expect(await prettier.format(text, { ...options, filepath: path.join(REPO, FIXTURE_OUTCOMES_FILE) })).toBe(text);
});

describe('controls on the derivation', () => {
  const copy = (name: string) => {
    const dir = path.join(scratch, name);
    cpSync(RECORDED, dir, { recursive: true });
    return dir;
  };
  const edit = (dir: string, file: string, id: string, outcome: string) => {
    const full = path.join(dir, file);
    const data = JSON.parse(readFileSync(full, 'utf8')) as { checks: Record<string, { outcome: string }> };
    data.checks[id]!.outcome = outcome;
    writeFileSync(full, JSON.stringify(data));
  };

  test('a recording that changed changes the derived table there, and nowhere else', () => {
    const dir = copy('changed');
    edit(dir, 'pgpool.json', 'session/set-leak', 'leaked');
    const before = fixtureOutcomesText(RECORDED).split('\n');
    const after = fixtureOutcomesText(dir).split('\n');
    expect(after.filter((l, i) => l !== before[i])).toEqual(["    'session/set-leak': 'leaked',"]);
  });

  test('two recordings of one fixture that disagree are refused, naming both', () => {
    const dir = copy('disagree');
    const state = JSON.parse(readFileSync(path.join(dir, 'direct-state.json'), 'utf8')) as {
      checks: Record<string, unknown>;
    };
    const main = JSON.parse(readFileSync(path.join(dir, 'direct.json'), 'utf8')) as {
      checks: Record<string, { outcome: string }>;
    };
    state.checks['session/set-leak'] = { ...main.checks['session/set-leak']!, outcome: 'leaked' };
    writeFileSync(path.join(dir, 'direct-state.json'), JSON.stringify(state));
    expect(() => fixtureOutcomesText(dir)).toThrow(
      'session/set-leak on direct: direct-state.json recorded leaked, direct.json session',
    );
  });
});

describe.each(Object.keys(FIXTURE_OUTCOMES) as (keyof typeof FIXTURE_OUTCOMES)[])('profile %s', (fixture) => {
  test('expects what its fixture recorded, less what it leaves out and the fixture-only checks', () => {
    const recorded: RecordedOutcomes = FIXTURE_OUTCOMES[fixture];
    const expected = Object.entries(findProfile(fixture).expect).map(([id, e]) => `${id}: ${e.outcome}`);
    const leftOut: Record<string, string[]> = {
      pgpool: ['cancel/routing'],
      direct: ['protocol/negotiation'],
      'pgbouncer-statement': ['prepared/close'],
    };
    const fixtureOnly = ['capacity/burst'];
    expect(expected.sort()).toEqual(
      Object.entries(recorded)
        .filter(([id]) => !(leftOut[fixture] ?? []).includes(id) && !fixtureOnly.includes(id))
        .map(([id, o]) => `${id}: ${o}`)
        .sort(),
    );
  });
});

describe('observedOnFixture', () => {
  test("a recorded check nobody wrote about is expected all the same, with the profile's reference", () => {
    const table = observedOnFixture({ fixture: 'pgpool', on: 'the fixture', ref: REF }, {});
    expect(table['cancel/routing']).toEqual({
      outcome: 'ignored',
      ref: REF,
      basis: 'observed',
      observedOn: 'the fixture',
    });
    expect(table['capacity/burst']).toBeUndefined();
  });

  test('a profile reusing the table carries only what a person wrote a reference for', () => {
    const table = observedOnFixture(
      { fixture: 'pgpool', on: 'the fixture', ref: REF },
      { 'notify/listen': { ref: REF } },
    );
    expect(Object.keys(table).length).toBeGreaterThan(20);
    expect(Object.keys(decidedOnly({ ...table }))).toEqual(['notify/listen']);
  });

  test('a reference for a check the fixture never concluded, or one left out, stops the profile with why', () => {
    expect(() =>
      observedOnFixture({ fixture: 'direct', on: 'x', ref: REF }, { 'capacity/burst': { ref: REF } }),
    ).toThrow('profile of fixture direct: capacity/burst has a reference but is left out');
    expect(() =>
      observedOnFixture(
        { fixture: 'pgpool', on: 'x', ref: REF, leaveOut: { 'cancel/routing': 'not documented' } },
        { 'cancel/routing': { ref: REF } },
      ),
    ).toThrow('cancel/routing has a reference but is left out');
  });

  test('the direct profile leaves protocol/negotiation out: PostgreSQL 15 negotiates, 18 serves 3.2', () => {
    // The recording is PostgreSQL 15's; the profile is asserted on the PostgreSQL 18 column too.
    expect(FIXTURE_OUTCOMES.direct['protocol/negotiation']).toBe('negotiated');
    expect(findProfile('direct').expect['protocol/negotiation']).toBeUndefined();
  });
});
