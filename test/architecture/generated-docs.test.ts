/**
 * The docs' tables are derived from the check files and profiles: the committed README.md and
 * INTERPRETING.md must be exactly what `npm run docs` writes, and the rule book must name every
 * label each check declares, in that check's own rules.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { checksTable, fillGenerated, GENERATED } from '../../reporters/catalogue-docs.js';
import { STATE_LABELS } from '../../engine/judging/state-outcomes.js';
import { CATALOGUE } from '../../suites/catalogue.js';
import { REPO } from '../support/cli.js';

describe('generated docs', () => {
  test.each(Object.keys(GENERATED))(
    '%s holds exactly what the checks and profiles say (run `npm run docs` after changing a check)',
    (file) => {
      const text = readFileSync(path.join(REPO, file), 'utf8');
      expect(fillGenerated(text, GENERATED[file]!)).toBe(text);
    },
  );

  test('control: a changed summary would make the README differ', () => {
    const text = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const changed = CATALOGUE.map((c, i) => (i === 0 ? { ...c, summary: `${c.summary} (changed)` } : c));
    expect(fillGenerated(text, { checks: () => checksTable(changed) })).not.toBe(text);
  });

  test("INTERPRETING's rules for each check name every label the check declares", () => {
    const rules = readFileSync(path.join(REPO, 'INTERPRETING.md'), 'utf8');
    const generatedStart = rules.indexOf('<!-- generated:labels -->');
    const generatedEnd = rules.indexOf('<!-- /generated:labels -->');
    const prose = rules.slice(0, generatedStart) + rules.slice(generatedEnd);
    const missing: string[] = [];
    for (const c of CATALOGUE) {
      const labels = Object.keys(c.outcomes);
      const isState = labels.length === STATE_LABELS.length && STATE_LABELS.every((l, i) => labels[i] === l);
      // State checks share one rule list (section 4); every other check has its own paragraph or row.
      const section = isState
        ? prose.slice(prose.indexOf('## 4. State checks'), prose.indexOf('## 4b.'))
        : paragraphOf(prose, c.id);
      for (const l of labels) if (!section.includes(`\`${l}\``)) missing.push(`${c.id}: \`${l}\``);
    }
    expect(missing).toEqual([]);
  });
});

/** The bold paragraph (`**\`id\`**: ...`) or the table row (`| \`id\` | ...`) that gives a check's rules. */
function paragraphOf(text: string, id: string): string {
  const bold = text.indexOf(`**\`${id}\`**`);
  if (bold >= 0) return text.slice(bold, text.indexOf('\n\n', bold));
  const row = text.indexOf(`| \`${id}\` |`);
  return row >= 0 ? text.slice(row, text.indexOf('\n', row)) : '';
}
