/**
 * Every built-in profile is well-formed: named once, described, versioned, referenced, and only
 * expecting labels its checks can report. The controls show the validator does reject what it
 * claims to reject.
 */
import { describe, expect, test } from 'vitest';
import { isLabelOf } from '../../suites/labels.js';
import { PROFILES, findProfile, profileIds, profileProblems, profilesProblems } from '../../profiles/index.js';
import { isReference, movingReference, provenanceProblems } from '../../profiles/validate-profile.js';
import { EXPECTED } from '../catalogue/expected-outcomes.js';
import { COMPAT_RUNNABLE } from '../../bench/compatibility-targets.js';
import { CATALOGUE } from '../../suites/catalogue.js';

/**
 * Profiles of the poolers built from source whose column test/catalogue/compatibility.test.ts
 * runs with the profile asserted (observed-profiles.test.ts holds them to the committed columns).
 */
const SOURCE_PROFILES = [
  // Once each: a profile may be asserted on more than one column (Odyssey on PostgreSQL 15 and 18).
  ...new Set(COMPAT_RUNNABLE.filter((t) => t.group !== 'debian' && t.profile !== null).map((t) => t.profile!)),
];
import type { Profile } from '../../engine/record/profile.js';
/**
 * A source-built fixture's profile is observed wherever its column concludes; where the column
 * declares that the fixture cannot conclude a check (bench/compatibility-targets.ts, e.g.
 * pgagroal's malformed 53300), the profile may keep a documented expectation, and only there:
 * on every column that asserts the profile, since one that concludes observes it.
 */
const UNCONCLUDABLE: Record<string, string[]> = {};
for (const t of COMPAT_RUNNABLE.filter((x) => x.profile !== null)) {
  const open = Object.keys(t.inconclusive ?? {});
  const before = UNCONCLUDABLE[t.profile!];
  UNCONCLUDABLE[t.profile!] = before === undefined ? open : before.filter((id) => open.includes(id));
}
// A check known to wedge a profile's pooler and mode is skipped on its fixture by default
// (engine/execute/known-wedge.ts): its expectation there can rest on documentation only.
for (const p of PROFILES) {
  const wedged = CATALOGUE.filter((c) => c.wedges?.some((w) => w.pooler === p.pooler && w.mode === p.mode));
  if (wedged.length > 0) UNCONCLUDABLE[p.name] = [...(UNCONCLUDABLE[p.name] ?? []), ...wedged.map((c) => c.id)];
}

describe('built-in profiles', () => {
  test('no profile has a problem, and no name is used twice', () => {
    expect(profilesProblems(PROFILES)).toEqual([]);
    expect(new Set(profileIds()).size).toBe(PROFILES.length);
  });

  test('every pooler family of the catalogue has a profile', () => {
    expect(profileIds()).toEqual(
      expect.arrayContaining([
        'direct',
        'pgbouncer-transaction',
        'pgbouncer-session',
        'pgbouncer-statement',
        'pgpool',
        'pgbouncer-1.21-transaction',
        'pgbouncer-1.22-transaction',
        'pgbouncer-1.24-transaction',
        'pgbouncer-1.25-transaction',
        'pgbouncer-1.25-transaction-no-prepared',
        'pgbouncer-1.25-session',
        'odyssey-session',
        'pgagroal-transaction',
        'pgagroal-session',
        'pgcat-transaction',
        'pgdog-transaction',
        'odyssey-transaction',
        'supavisor-transaction',
        'rds-proxy',
      ]),
    );
  });

  test('pgbouncer-transaction stays the Debian 1.18 profile and says so', () => {
    const p = findProfile('pgbouncer-transaction');
    expect(p.title).toContain('1.18');
    expect(p.versions).toMatch(/^1\.18/);
  });

  test('an unknown profile name is refused with the known ones listed', () => {
    expect(() => findProfile('pgbouncer-9.9-transaction')).toThrowError(/unknown profile.*pgbouncer-transaction/);
  });

  describe.each(PROFILES.map((p) => [p.name, p] as const))('%s', (_name, p) => {
    test('has a title, pooler, mode, versions and a reference a reader can open', () => {
      for (const field of [p.title, p.pooler, p.mode, p.versions]) expect(field.trim()).not.toBe('');
      expect(isReference(p.ref), p.ref).toBe(true);
    });

    test('asserts something, and every expectation is a label of its check with a reference', () => {
      const entries = Object.entries(p.expect);
      expect(entries.length).toBeGreaterThan(0);
      for (const [id, e] of entries) {
        expect(isLabelOf(id, e.outcome), `${id}: ${e.outcome}`).toBe(true);
        expect(e.ref.trim(), id).not.toBe('');
        expect(isReference(e.ref), `${id}: ${e.ref}`).toBe(true);
      }
    });
  });
});

describe('profile validation controls', () => {
  const good: Profile = {
    name: 'control',
    title: 'a control profile',
    pooler: 'none',
    mode: 'direct',
    versions: 'any',
    ref: 'https://www.postgresql.org/docs/current/',
    expect: { 'session/set-leak': { outcome: 'session', ref: 'https://www.postgresql.org/docs/current/sql-set.html' } },
  };

  test('a well-formed profile passes', () => {
    expect(profileProblems(good)).toEqual([]);
  });

  test.each([
    [
      'an unknown check id',
      { ...good, expect: { 'session/no-such-check': { outcome: 'session', ref: good.ref } } },
      /not a known check id/,
    ],
    [
      'a label of another check',
      { ...good, expect: { 'session/set-leak': { outcome: 'routed', ref: good.ref } } },
      /not one of its labels/,
    ],
    [
      'an empty expectation reference',
      { ...good, expect: { 'session/set-leak': { outcome: 'session', ref: '' } } },
      /no usable reference/,
    ],
    [
      'a reference that is only prose',
      { ...good, expect: { 'session/set-leak': { outcome: 'session', ref: 'the docs say so' } } },
      /no usable reference/,
    ],
    ['a profile reference that is not a link', { ...good, ref: 'features page' }, /neither a URL nor/],
    ['an empty title', { ...good, title: ' ' }, /title is empty/],
    ['an empty versions field', { ...good, versions: '' }, /versions is empty/],
    ['a name that is not kebab-case', { ...good, name: 'PgBouncer Transaction' }, /name must be/],
  ] as const)('rejects %s', (_what, profile, problem) => {
    expect(profileProblems(profile as Profile).join('\n')).toMatch(problem);
  });

  test('rejects a name used twice', () => {
    expect(profilesProblems([good, { ...good }])).toEqual(['profile name "control" is used twice']);
  });

  test('accepts a repository path as a reference', () => {
    expect(isReference('pgbouncer/pgbouncer.github.io@1ce5540a:features.md (Never)')).toBe(true);
    expect(isReference('pgbouncer/features.md')).toBe(false);
  });
});

describe('profiles say how they know', () => {
  test('every built-in expectation has a basis, observed ones name the version, and no reference moves', () => {
    expect(PROFILES.flatMap(provenanceProblems)).toEqual([]);
  });

  test('only the profiles the catalogue tests run against a real fixture claim to be observed', () => {
    const observedIn = PROFILES.filter((p) => Object.values(p.expect).some((e) => e.basis === 'observed')).map(
      (p) => p.name,
    );
    expect(observedIn.sort()).toEqual([...Object.keys(EXPECTED), ...SOURCE_PROFILES].sort());
    for (const name of [...Object.keys(EXPECTED), ...SOURCE_PROFILES]) {
      const notObserved = Object.entries(findProfile(name).expect)
        .filter(([, e]) => e.basis !== 'observed')
        .map(([id]) => id);
      expect(
        notObserved.filter((id) => !(UNCONCLUDABLE[name] ?? []).includes(id)),
        name,
      ).toEqual([]);
    }
  });

  test.each([
    ['postgresml/pgcat@main:src/server.rs', /branch main/],
    ['https://www.postgresql.org/docs/current/sql-set.html', /changes with each release/],
    ['https://www.pgbouncer.org/config.html', /changes with each release/],
    ['https://github.com/postgresml/pgcat/blob/master/CONFIG.md', /changes with each release/],
  ])('control: %s is a moving reference', (ref, why) => {
    expect(movingReference(ref)).toMatch(why);
  });

  test.each([
    'pgbouncer/pgbouncer@pgbouncer_1_18_0:doc/config.md',
    'https://www.postgresql.org/docs/15/sql-set.html',
    'https://github.com/yandex/odyssey/pull/1174',
  ])('%s is pinned', (ref) => {
    expect(movingReference(ref)).toBeNull();
  });

  test('control: an expectation without a basis, or observed on no version, is reported', () => {
    const p: Profile = {
      name: 'x',
      title: 'x',
      pooler: 'x',
      mode: 'x',
      versions: '1',
      ref: 'a/b@1234567:README.md',
      expect: {
        'session/set-leak': { outcome: 'leaked', ref: 'a/b@1234567:x.md' },
        'session/set-local': { outcome: 'scoped', ref: 'a/b@1234567:x.md', basis: 'observed' },
      },
    };
    expect(provenanceProblems(p)).toEqual([
      expect.stringMatching(/set-leak does not say how it is known/),
      expect.stringMatching(/set-local is observed, but not on which version/),
    ]);
  });
});
