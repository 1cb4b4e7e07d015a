/**
 * The check-id and label table is DESIGN.md's contract as data: it must hold every check the
 * contract names, give the state checks the state vocabulary, and know every check the catalogue
 * actually runs.
 */
import { describe, expect, test } from 'vitest';
import { CHECK_IDS, CHECK_LABELS, STATE_LABELS, isCheckId, isLabelOf, labelsOf } from '../../suites/labels.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { inconsistentBreaks } from '../../suites/outcome-breaks.js';

/** DESIGN.md "Checks and outcome labels" and issue 3, written out once more on purpose. */
const CONTRACT_IDS = [
  'session/set-leak',
  'session/search-path-leak',
  'session/custom-guc-leak',
  'session/role-leak',
  'session/tracked-parameter',
  'session/set-local',
  'session/reset-on-disconnect',
  'session/discard-all',
  'temp/temp-table',
  'temp/on-commit-drop',
  'prepared/sql-prepare',
  'prepared/protocol-named',
  'cursors/with-hold',
  'sequences/lastval',
  'locks/advisory-session',
  'locks/advisory-xact',
  'notify/listen',
  'transactions/abandoned',
  'cancel/routing',
  'capacity/queueing',
  'capacity/multiplexing',
  'capacity/burst',
  'statement/transaction-block',
  'session/lock-timeout-leak',
  // Issue 12: the capacity figures users quote.
  'capacity/connect-churn',
  'auth/stale-password',
];

const STATE_CHECKS = [
  'session/set-leak',
  'session/lock-timeout-leak',
  'session/search-path-leak',
  'session/custom-guc-leak',
  'session/role-leak',
  'session/tracked-parameter',
  'temp/temp-table',
  'prepared/sql-prepare',
  'cursors/with-hold',
  'sequences/lastval',
];

describe('check labels', () => {
  test('the table holds exactly the check ids of the contract', () => {
    expect([...CHECK_IDS].sort()).toEqual([...CONTRACT_IDS].sort());
  });

  test('every check id has the area/behaviour form', () => {
    for (const id of CHECK_IDS) expect(id).toMatch(/^[a-z]+\/[a-z][a-z-]*$/);
  });

  test('the state checks report the state vocabulary', () => {
    for (const id of STATE_CHECKS) expect(labelsOf(id), id).toEqual(STATE_LABELS);
  });

  test('labels are lower-case words and never repeat within a check', () => {
    for (const [id, labels] of Object.entries(CHECK_LABELS)) {
      expect(new Set(labels).size, id).toBe(labels.length);
      for (const label of labels) expect(label, id).toMatch(/^[a-z]+(-[a-z]+)*$/);
    }
  });

  test('every check in the catalogue is a check of the contract', () => {
    const unknown = CATALOGUE.map((c) => c.id).filter((id) => !isCheckId(id));
    expect(unknown).toEqual([]);
  });

  test("every outcome a catalogue check gives advice for is one of that check's labels", () => {
    const strays = CATALOGUE.flatMap((c) =>
      Object.entries(c.outcomes as Record<string, { advice?: string }>)
        .filter(([label, o]) => o.advice !== undefined && !isLabelOf(c.id, label))
        .map(([label]) => `${c.id}: ${label}`),
    );
    expect(strays).toEqual([]);
  });

  test('every label declares its meaning, and means the same breaks/keeps in every check that reports it', () => {
    const vague = CATALOGUE.flatMap((c) =>
      Object.entries(c.outcomes as Record<string, { means: string }>)
        .filter(([, o]) => o.means.trim().length < 10)
        .map(([label]) => `${c.id}: ${label}`),
    );
    expect(vague).toEqual([]);
    expect(inconsistentBreaks()).toEqual([]);
  });

  test('control: two checks declaring one label with different breaks values are reported', () => {
    const a = { id: 'x/a', outcomes: { gone: { means: 'went away for good', breaks: true } } };
    const b = { id: 'x/b', outcomes: { gone: { means: 'went away for good', breaks: false } } };
    expect(inconsistentBreaks([a, b])).toEqual(['gone: breaks=true in x/a, false in x/b']);
  });

  test('lookups refuse what the contract does not hold', () => {
    expect(isCheckId('session/set-leak')).toBe(true);
    expect(isCheckId('session/nonexistent')).toBe(false);
    expect(labelsOf('toString')).toBeNull();
    expect(isLabelOf('cancel/routing', 'routed')).toBe(true);
    expect(isLabelOf('cancel/routing', 'leaked')).toBe(false);
    expect(isLabelOf('session/discard-all', 'leaked')).toBe(false);
  });
});
