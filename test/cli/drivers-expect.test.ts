/**
 * Regression (issue 40, re-tested after the batch and migration phases landed): `pooltest
 * drivers --expect FILE` refused `{"pgx/batch@default": "failed"}` and `"stalled"` with
 * BAD_ARGUMENTS ("is not driver/scenario@config: works|retried|failed"), and its --help listed
 * the scenarios as "moved, collision, cursor, batch": both kept lists of their own, written
 * before the judges gave batch, migration, stalled and split. Held here to what the judges and
 * the built-in profiles use, with the refusals as controls.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { readExpectations } from '../../cli/drivers-command.js';
import { DRIVERS_GRAMMAR } from '../../cli/drivers-grammar.js';
import { renderHelp as commandHelp } from '../../common/command-help.js';
import { DRIVER_OUTCOMES, DRIVER_SCENARIOS } from '../../drivers/judge.js';
import { DRIVER_PROFILES } from '../../drivers/profiles.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-drivers-expect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectFile(name: string, value: unknown): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

test('what a built-in driver profile expects, --expect takes as a file (batch and migration, stalled included)', () => {
  for (const [name, profile] of Object.entries(DRIVER_PROFILES)) {
    const expected = profile();
    expect(readExpectations(expectFile(name, expected))).toEqual(expected);
  }
  // The profile of PgBouncer 1.18 expects a stalled batch and a failed migration: what was refused.
  const tx = DRIVER_PROFILES['pgbouncer-transaction']!();
  expect(Object.entries(tx)).toContainEqual(['postgres.js/batch@default', 'stalled']);
  expect(Object.keys(tx).some((id) => id.includes('/migration@'))).toBe(true);
});

test('every outcome label and every scenario is accepted; an unknown one is refused, naming the known ones', () => {
  for (const outcome of Object.keys(DRIVER_OUTCOMES))
    for (const scenario of DRIVER_SCENARIOS) {
      const one = { [`pgx/${scenario}@default`]: outcome };
      expect(readExpectations(expectFile(`${scenario}-${outcome}`, one))).toEqual(one);
    }
  // Controls: a label the judges never give, and a scenario that does not exist.
  expect(() => readExpectations(expectFile('label', { 'pgx/batch@default': 'leaked' }))).toThrow(
    /works\|retried\|failed\|stalled\|split/,
  );
  expect(() => readExpectations(expectFile('scenario', { 'pgx/pipeline@default': 'works' }))).toThrow(
    /scenarios: moved, collision, cursor, batch, migration/,
  );
});

test('drivers --help names every scenario and every outcome label', () => {
  const help = commandHelp(DRIVERS_GRAMMAR);
  // The option's own lines, not the synopsis.
  const option = (from: string, to: string): string =>
    help.slice(help.indexOf(`\n  ${from} `), help.indexOf(`\n  ${to} `));
  const scenarioLine = option('--scenario', '--list');
  for (const scenario of DRIVER_SCENARIOS) expect(scenarioLine).toContain(scenario);
  const expectLine = option('--expect', '--strict');
  expect(expectLine).toMatch(/^\n  --expect FILE/);
  for (const outcome of Object.keys(DRIVER_OUTCOMES)) expect(expectLine).toContain(outcome);
});
