/**
 * The catalogue's tables for README.md and INTERPRETING.md, rendered from the check files
 * (ids, severities, summaries, labels and their meanings) and the profiles (typical outcomes).
 * `npm run docs` writes them between `<!-- generated:NAME -->` markers; a test fails when the
 * committed docs differ from what this renders, so the docs cannot drift from the code.
 */
import type { OutcomeInfo } from '../engine/execute/check.js';
import { STATE_LABELS, STATE_OUTCOMES } from '../engine/judging/state-outcomes.js';
import type { Profile } from '../engine/record/profile.js';
import { findProfile } from '../profiles/index.js';
import { CATALOGUE } from '../suites/catalogue.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';

/** The check files' view the tables need (kept narrow so tests can pass a small catalogue). */
export interface DocCheck {
  id: string;
  severity: string;
  summary: string;
  outcomes: object;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function isStateCheck(c: DocCheck): boolean {
  const labels = Object.keys(c.outcomes);
  return labels.length === STATE_LABELS.length && STATE_LABELS.every((l, i) => labels[i] === l);
}

/** README: one row per check with the outcomes direct PostgreSQL and PgBouncer transaction mode are expected to give. */
export function checksTable(
  checks: readonly DocCheck[] = CATALOGUE,
  columns: readonly Profile[] = [findProfile('direct'), findProfile('pgbouncer-transaction')],
): string {
  const head = `| check | severity | what it does | ${columns.map((p) => p.name).join(' / ')} |`;
  const rows = checks.map(
    (c) =>
      `| \`${c.id}\` | ${c.severity} | ${cell(c.summary)} | ${columns.map((p) => p.expect[c.id]?.outcome ?? '-').join(' / ')} |`,
  );
  return [head, '|---|---|---|---|', ...rows].join('\n');
}

/** README: the state vocabulary once, then each other check's labels with their meanings. */
export function outcomesTable(checks: readonly DocCheck[] = CATALOGUE): string {
  const rows = [
    '| outcome | meaning |',
    '|---|---|',
    ...STATE_LABELS.map((l) => `| \`${l}\` | ${cell(STATE_OUTCOMES[l].means)} (state checks) |`),
  ];
  for (const c of checks) {
    if (isStateCheck(c)) continue;
    const labels = Object.entries(c.outcomes as Record<string, OutcomeInfo>).map(([l, o]) => `\`${l}\`: ${o.means}`);
    rows.push(`| \`${c.id}\` | ${cell(labels.join('; '))} |`);
  }
  rows.push(
    '| `inconclusive` (verdict) | pooltest could not force or prove the situation; the reason says what was missing |',
  );
  return rows.join('\n');
}

/** INTERPRETING: every label of every check, its meaning, and whether it breaks an application written for a direct connection. */
export function labelsTable(checks: readonly DocCheck[] = CATALOGUE): string {
  const rows = ['| check | label | meaning | breaks an app written for direct Postgres |', '|---|---|---|---|'];
  for (const c of checks) {
    for (const [l, o] of Object.entries(c.outcomes as Record<string, OutcomeInfo>))
      rows.push(`| \`${c.id}\` | \`${l}\` | ${cell(o.means)} | ${outcomeBreaks(l) === true ? 'yes' : 'no'} |`);
  }
  return rows.join('\n');
}

/** INTERPRETING section 4: the state checks, named in catalogue order (they share one scenario). */
export function stateChecksList(checks: readonly DocCheck[] = CATALOGUE): string {
  const ids = checks.filter(isStateCheck).map((c) => `\`${c.id}\``);
  return `${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]!} share one scenario:`;
}

/** The generated sections per file: marker name to content. */
export const GENERATED: Record<string, Record<string, () => string>> = {
  'README.md': { checks: checksTable, outcomes: outcomesTable },
  'INTERPRETING.md': { 'state-checks': stateChecksList, labels: labelsTable },
};

/**
 * `text` with each `<!-- generated:NAME -->...<!-- /generated:NAME -->` section replaced by
 * its rendering; a section whose markers are missing is an error (the docs lost their anchor).
 */
export function fillGenerated(text: string, sections: Record<string, () => string>): string {
  let out = text;
  for (const [name, render] of Object.entries(sections)) {
    const open = `<!-- generated:${name} -->`;
    const close = `<!-- /generated:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`missing ${open} ... ${close}`);
    out = `${out.slice(0, start + open.length)}\n${render()}\n${out.slice(end)}`;
  }
  return out;
}
