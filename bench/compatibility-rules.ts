/**
 * What a column of docs/compatibility.md may hold besides one conclusive outcome per check, and
 * how a fresh run is held to it. Most cells are one run's outcome and must come out the same in
 * every run. Two exceptions exist, each declared on its target (compatibility-targets.ts) with
 * the reason a reader sees as a note under the table:
 * - `inconclusive`: the fixture cannot conclude the check, for a reason the run itself states
 *   (a pattern the run's reason must match, e.g. pgagroal's malformed 53300). Any other reason,
 *   or a conclusive answer, is a difference: the page would no longer say what the fixture does.
 * - `varies`: the check was seen to give more than one outcome across runs (every outcome seen
 *   is listed); a fresh run may give any of them and nothing else.
 * The sweep likewise: clean, unless the target declares why it cannot be (`sweep`).
 * The functions here are pure, so test/catalogue/compatibility.test.ts can show that they
 * refuse a run that differs (its controls) without starting a fixture.
 */
import type { Report } from '../engine/types.js';
import type { Matrix } from '../reporters/matrix.js';
import type { CompatTarget } from './compatibility-targets.js';

/** Measurements (a latency ratio on a shared machine), not behaviours: never compared. */
export const MEASURED_CHECKS: ReadonlySet<string> = new Set(['capacity/connect-churn']);

/** A committed cell, as the rules read it. */
export interface CommittedCell {
  outcome: string | null;
  verdict: string | null;
  reason?: string;
}

/** Fresh outcomes that may be missing (inconclusive under load) where the page has an answer. */
const UNANSWERED_ALLOWED = 2;

/** The cells of column `name` in `m`, by check id (checks the column did not run left out). */
export function committedColumn(m: Matrix, name: string): Record<string, CommittedCell> {
  const i = m.columns.findIndex((c) => c.name === name);
  if (i < 0) throw new Error(`no column "${name}" in the committed matrix`);
  return Object.fromEntries(
    m.rows
      .filter((r) => r.cells[i]!.verdict !== null)
      .map((r) => {
        const c = r.cells[i]!;
        return [r.id, { outcome: c.outcome, verdict: c.verdict, ...(c.reason ? { reason: c.reason } : {}) }];
      }),
  );
}

/** Sets `seen` on the cells the targets declare as varying, and recomputes `differs` for them. */
export function withVaryingCells(m: Matrix, targets: readonly CompatTarget[]): Matrix {
  const rows = m.rows.map((r) => ({
    ...r,
    cells: r.cells.map((c, i) => {
      const varies = targets.find((t) => t.name === m.columns[i]!.name)?.varies?.[r.id];
      if (!varies) return c;
      const ref = r.cells[0]!;
      return {
        ...c,
        seen: [...varies.outcomes],
        differs: c.verdict !== null && ref.verdict !== null && varies.outcomes.some((o) => o !== ref.outcome),
      };
    }),
  }));
  return { ...m, rows };
}

/**
 * What is wrong with the committed column of `t`: an inconclusive or failed cell not declared,
 * an inconclusive cell whose recorded reason is not the declared one, a varying cell outside its
 * set, a declaration on a cell that does not need it, a sweep not clean without a declared reason.
 */
export function committedProblems(t: CompatTarget, m: Matrix): string[] {
  const cells = committedColumn(m, t.name);
  const problems: string[] = [];
  for (const [id, c] of Object.entries(cells)) {
    const allowed = t.inconclusive?.[id];
    const varies = t.varies?.[id];
    if (c.verdict === 'fail') problems.push(`${id}: fail (${c.outcome}) against the column's profile`);
    else if (c.verdict === 'inconclusive') {
      // A measurement left inconclusive by load says so in its reason, and is compared nowhere.
      if (MEASURED_CHECKS.has(id) && c.reason) continue;
      if (!allowed) problems.push(`${id}: inconclusive (${c.reason ?? 'no reason recorded'}), not declared`);
      else if (!allowed.reason.test(c.reason ?? ''))
        problems.push(`${id}: inconclusive for "${c.reason ?? ''}", not the declared ${String(allowed.reason)}`);
    } else if (allowed) problems.push(`${id}: declared inconclusive, but the page has ${c.outcome}`);
    if (varies && c.outcome !== null && !varies.outcomes.includes(c.outcome))
      problems.push(`${id}: ${c.outcome} is not among the outcomes seen (${varies.outcomes.join(', ')})`);
    if (varies && varies.outcomes.length < 2) problems.push(`${id}: declared varying with one outcome`);
  }
  for (const id of [...Object.keys(t.inconclusive ?? {}), ...Object.keys(t.varies ?? {})])
    if (!Object.hasOwn(cells, id)) problems.push(`${id}: declared, but the column has no such check`);
  const col = m.columns.find((c) => c.name === t.name)!;
  if (col.sweepClean !== true && !t.sweep) problems.push(`sweep: ${String(col.sweepClean)}, not declared`);
  return problems;
}

/**
 * What differs between a fresh run of `t` and its committed column. A check the page answers
 * may come out inconclusive in the fresh run (load on a shared machine) at most
 * UNANSWERED_ALLOWED times, so the comparison cannot pass by going blind.
 */
export function freshProblems(t: CompatTarget, committed: Record<string, CommittedCell>, fresh: Report): string[] {
  const problems: string[] = [];
  const got = new Map(fresh.checks.map((c) => [c.id, c]));
  const unanswered: string[] = [];
  for (const [id, want] of Object.entries(committed)) {
    if (MEASURED_CHECKS.has(id)) continue;
    const c = got.get(id);
    if (!c) {
      problems.push(`${id}: missing from the fresh run`);
      continue;
    }
    const allowed = t.inconclusive?.[id];
    const varies = t.varies?.[id];
    if (allowed) {
      if (c.verdict !== 'inconclusive') problems.push(`${id}: ${c.outcome} where the page says it cannot conclude`);
      else if (!allowed.reason.test(c.reason))
        problems.push(`${id}: inconclusive for "${c.reason}", not the declared ${String(allowed.reason)}`);
    } else if (want.verdict === 'skipped') {
      if (c.verdict !== 'skipped') problems.push(`${id}: ${c.verdict} where the page has it skipped`);
    } else if (c.outcome === null) unanswered.push(`${id}: ${c.reason}`);
    else if (varies ? !varies.outcomes.includes(c.outcome) : c.outcome !== want.outcome)
      problems.push(`${id}: ${c.outcome}, the page has ${varies ? varies.outcomes.join(' | ') : want.outcome}`);
  }
  for (const id of got.keys()) if (!Object.hasOwn(committed, id)) problems.push(`${id}: not on the page`);
  if (unanswered.length > UNANSWERED_ALLOWED)
    problems.push(`${unanswered.length} answered checks inconclusive: ${unanswered.join('; ')}`);
  const sweep = fresh.sweep;
  if (sweep?.clean !== true) {
    const why = `${sweep?.state ?? 'not run'}${sweep?.reason ? ` (${sweep.reason})` : ''}`;
    if (!t.sweep) problems.push(`sweep: ${why}`);
    else if (!t.sweep.states.includes(sweep?.state ?? 'not run'))
      problems.push(`sweep: ${why}, not one of ${t.sweep.states.join(', ')}`);
  }
  return problems;
}

/** The notes a target's column carries, by check id: declared footnotes, inconclusive and varying cells. */
export function cellNotes(t: CompatTarget, m: Matrix): Array<[string, string]> {
  const i = m.columns.findIndex((c) => c.name === t.name);
  const notes: Array<[string, string]> = Object.entries(t.footnotes ?? {});
  for (const [id, a] of Object.entries(t.inconclusive ?? {})) {
    const row = m.rows.find((r) => r.id === id);
    const reason = i >= 0 ? row?.cells[i]?.reason : undefined;
    notes.push([id, `inconclusive${reason ? `, the run's reason: "${reason}"` : ''}. ${a.why}`]);
  }
  for (const [id, v] of Object.entries(t.varies ?? {}))
    notes.push([id, `seen to vary across runs (${v.outcomes.map((o) => `\`${o}\``).join(', ')}). ${v.why}`]);
  return notes;
}
