/**
 * The check-id and label table (suites/labels.ts) is derived from the catalogue, so these tests
 * hold it against what is independent of it: the check files on disk, the state judge the
 * files call, and the one table of which label words break an application.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { CHECK_IDS, CHECK_LABELS, STATE_LABELS, isCheckId, isLabelOf, labelsOf } from '../../suites/labels.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { OUTCOME_BREAKS, outcomeBreaks, vocabularyGaps } from '../../suites/outcome-breaks.js';
import { REPO } from '../support/cli.js';

const SUITES = path.join(REPO, 'suites');

/** Every `suites/<area>/<behaviour>.check.ts` on disk, as its id, with its source. */
function checkFiles(): { id: string; source: string }[] {
  return readdirSync(SUITES)
    .filter((area) => statSync(path.join(SUITES, area)).isDirectory())
    .flatMap((area) =>
      readdirSync(path.join(SUITES, area))
        .filter((f) => f.endsWith('.check.ts'))
        .map((f) => ({
          id: `${area}/${f.replace(/\.check\.ts$/, '')}`,
          source: readFileSync(path.join(SUITES, area, f), 'utf8'),
        })),
    );
}

describe('check labels', () => {
  test('the table holds exactly the checks whose files are in suites/ (an area index that forgets one fails)', () => {
    expect([...CHECK_IDS].sort()).toEqual(
      checkFiles()
        .map((f) => f.id)
        .sort(),
    );
  });

  test('every check id has the area/behaviour form', () => {
    for (const id of CHECK_IDS) expect(id).toMatch(/^[a-z]+\/[a-z][a-z-]*$/);
  });

  test('the checks judged by the shared state judge report the state vocabulary, in its order', () => {
    const stateChecks = checkFiles()
      .filter((f) => /\bjudgeState\(/.test(f.source))
      .map((f) => f.id);
    expect(stateChecks.length).toBeGreaterThan(5);
    for (const id of stateChecks) expect(labelsOf(id), id).toEqual(STATE_LABELS);
  });

  test('labels are lower-case words and never repeat within a check', () => {
    for (const [id, labels] of Object.entries(CHECK_LABELS)) {
      expect(new Set(labels).size, id).toBe(labels.length);
      for (const label of labels) expect(label, id).toMatch(/^[a-z]+(-[a-z]+)*$/);
    }
  });

  test('every label word has one breaks entry in suites/outcome-breaks.ts, and the table has no stale word', () => {
    expect(vocabularyGaps(CATALOGUE)).toEqual([]);
  });

  test('control: a label without a breaks entry, and a word no check reports, are both named', () => {
    const checks = [{ id: 'x/a', outcomes: { gone: { means: 'went away for good' } } }];
    expect(vocabularyGaps(checks, { kept: false })).toEqual([
      'x/a: "gone" has no breaks entry in suites/outcome-breaks.ts',
      '"kept" is in suites/outcome-breaks.ts but no check reports it',
    ]);
    expect(outcomeBreaks('gone')).toBe('unknown');
    expect(outcomeBreaks(null)).toBe('unknown');
  });

  test('every label declares its meaning, and every label that breaks an application says what to do', () => {
    const vague = CATALOGUE.flatMap((c) =>
      Object.entries(c.outcomes as Record<string, { means: string }>)
        .filter(([, o]) => o.means.trim().length < 10)
        .map(([label]) => `${c.id}: ${label}`),
    );
    expect(vague).toEqual([]);
    const adviceless = CATALOGUE.flatMap((c) =>
      Object.entries(c.outcomes as Record<string, { advice?: string }>)
        .filter(([label, o]) => OUTCOME_BREAKS[label as keyof typeof OUTCOME_BREAKS] === true && !o.advice?.trim())
        .map(([label]) => `${c.id}: ${label}`),
    );
    expect(adviceless).toEqual([]);
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
