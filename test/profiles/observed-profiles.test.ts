/**
 * A profile that says `observed` for a pooler built from source must say what its fixture's
 * committed column in docs/compatibility.json shows, check by check, and must have passed there
 * (the column was run with the profile asserted). compatibility.test.ts keeps those columns
 * honest against fresh runs; this keeps the profiles honest against the columns, without a run.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { COMPAT_FILES, COMPAT_RUNNABLE } from '../../bench/compatibility-targets.js';
import { findProfile } from '../../profiles/index.js';
import type { Matrix } from '../../reporters/matrix.js';
import { REPO } from '../support/cli.js';

const committed = JSON.parse(readFileSync(path.join(REPO, COMPAT_FILES.json), 'utf8')) as Matrix;
const SOURCE = COMPAT_RUNNABLE.filter((t) => t.group !== 'debian' && t.profile !== null);

describe.each(SOURCE)('profile $profile on its column "$name"', (t) => {
  test('every observed expectation is the committed outcome, and the column passed it', () => {
    const i = committed.columns.findIndex((c) => c.name === t.name);
    expect(i, `column ${t.name}`).toBeGreaterThanOrEqual(0);
    expect(committed.columns[i]!.profile).toBe(t.profile);
    const profile = findProfile(t.profile!);
    const observed = Object.entries(profile.expect).filter(([, e]) => e.basis === 'observed');
    expect(observed.length).toBeGreaterThan(10);
    const cell = (id: string) => committed.rows.find((r) => r.id === id)?.cells[i];
    expect(observed.map(([id]) => `${id}: ${cell(id)?.outcome} ${cell(id)?.verdict}`)).toEqual(
      observed.map(([id, e]) => `${id}: ${e.outcome} pass`),
    );
  });
});
