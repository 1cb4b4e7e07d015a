/**
 * docs/compatibility.md (and its .html and .json) must say what the fixtures really do. The
 * main fixtures' columns are compared with expected-outcomes.ts, which catalogue.test.ts holds
 * against fresh runs of every one of them (PostgreSQL 18 included), so those columns are not run
 * twice; the variant configurations, which the catalogue test only runs for the checks they
 * exist to show, are regenerated here in full. Outcomes are compared, never timings or run ids
 * (nor the outcome of a measured check such as capacity/connect-churn, which is a timing).
 * The columns of the poolers built from source are too many to run in full every time: see
 * sourceColumns() for the rotation, and POOLTEST_COMPAT_SOURCE_COLUMNS=all to run them all.
 * When this fails after a deliberate change: `npm run matrix:docs`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
  COMPAT_FILES,
  COMPAT_RUNNABLE,
  COMPAT_TARGETS,
  RUN_BOUND_MS,
  type CompatTarget,
} from '../../bench/compatibility-targets.js';
import { poolerBuildUnavailable } from '../../fixtures/pooler-build.js';
import { sourcePoolerOf } from '../../fixtures/stack.js';
import type { Report, SweepResult } from '../../engine/types.js';
import { committedColumn, committedProblems, freshProblems, MEASURED_CHECKS } from '../../bench/compatibility-rules.js';
import { runTarget, writeCompatibility } from '../../bench/compatibility.js';
import type { Matrix } from '../../reporters/matrix.js';
import { REPO } from '../support/cli.js';
import { comparable, EXPECTED, ON_POSTGRES_18, VARIANTS } from './expected-outcomes.js';

const committed = JSON.parse(readFileSync(path.join(REPO, COMPAT_FILES.json), 'utf8')) as Matrix;

function column(m: Matrix, name: string): Record<string, string | null> {
  return Object.fromEntries(Object.entries(committedColumn(m, name)).map(([id, c]) => [id, c.outcome]));
}

describe('docs/compatibility.md', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-compat-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('has a column for every target the fixtures can start; a cell not concluded or varying is declared, with its reason', () => {
    expect(committed.columns.map((c) => c.name)).toEqual(COMPAT_RUNNABLE.map((t) => t.name));
    expect(COMPAT_RUNNABLE.flatMap((t) => committedProblems(t, committed).map((p) => `${t.name}: ${p}`))).toEqual([]);
  });

  // Controls: the comparison a fresh run goes through (freshProblems) refuses a run that differs.
  // The committed pgagroal transaction column is the subject: it has every kind of cell.
  describe('the comparison of a fresh run with the page (controls)', () => {
    const t = COMPAT_RUNNABLE.find((x) => x.stack === 'pgagroal-transaction')!;
    const want = committedColumn(committed, t.name);
    const fake = (
      edit: (checks: FakeCheck[]) => void,
      sweep: Partial<SweepResult> = { clean: true, state: 'clean' },
    ): Report => {
      const checks: FakeCheck[] = Object.entries(want).map(([id, c]) => ({
        id,
        outcome: c.outcome,
        verdict: c.verdict!,
        reason: c.reason ?? '',
      }));
      edit(checks);
      return { checks, sweep } as unknown as Report;
    };
    const set = (checks: FakeCheck[], id: string, c: Partial<FakeCheck>): void => {
      Object.assign(
        checks.find((x) => x.id === id)!,
        c,
      );
    };
    const varying = Object.entries(t.varies ?? {})[0]!;
    const undecided = Object.keys(t.inconclusive ?? {})[0]!;
    const answered = Object.entries(want)
      .filter(([id, c]) => c.outcome !== null && !t.varies?.[id] && !MEASURED_CHECKS.has(id))
      .map(([id]) => id);

    test('the committed column itself passes, and so does each outcome of a varying cell', () => {
      expect(
        freshProblems(
          t,
          want,
          fake(() => undefined),
        ),
      ).toEqual([]);
      for (const o of varying[1].outcomes)
        expect(
          freshProblems(
            t,
            want,
            fake((c) => set(c, varying[0], { outcome: o, verdict: 'observed' })),
          ),
        ).toEqual([]);
    });

    test('fails on an outcome changed, an outcome outside a varying set, a missing check', () => {
      const other = (o: string | null): string => (o === 'leaked' ? 'lost' : 'leaked');
      const changed = answered[0]!;
      expect(
        freshProblems(
          t,
          want,
          fake((c) => set(c, changed, { outcome: other(want[changed]!.outcome) })),
        ),
      ).toHaveLength(1);
      expect(
        freshProblems(
          t,
          want,
          fake((c) => set(c, varying[0], { outcome: 'ignored' })),
        ),
      ).toHaveLength(1);
      expect(
        freshProblems(
          t,
          want,
          fake((c) => c.splice(0, 1)),
        ),
      ).toHaveLength(1);
    });

    test('fails when a cell declared inconclusive concludes or gives another reason', () => {
      expect(
        freshProblems(
          t,
          want,
          fake((c) => set(c, undecided, { outcome: 'queued', verdict: 'observed' })),
        ),
      ).toHaveLength(1);
      expect(
        freshProblems(
          t,
          want,
          fake((c) => set(c, undecided, { reason: 'no answer within 5000 ms' })),
        ),
      ).toHaveLength(1);
    });

    test('fails when it goes blind (three answered checks inconclusive) or the sweep is not as declared', () => {
      const blind = fake((c) => {
        for (const id of answered.slice(0, 3)) set(c, id, { outcome: null, verdict: 'inconclusive', reason: 'busy' });
      });
      expect(freshProblems(t, want, blind).join('\n')).toMatch(/3 answered checks inconclusive/);
      const strict = { ...t, sweep: undefined };
      expect(
        freshProblems(
          strict,
          want,
          fake(() => undefined, { clean: false, state: 'unknown', reason: 'x' }),
        ),
      ).toHaveLength(1);
    });

    test('the page itself is refused with an undeclared inconclusive cell', () => {
      const bare = { ...t, inconclusive: undefined };
      expect(committedProblems(bare, committed).join('\n')).toMatch(/inconclusive .*not declared/);
    });
  });

  test("the main fixtures' columns give exactly the outcomes the catalogue test asserts", () => {
    for (const t of COMPAT_RUNNABLE.filter((x) => Object.hasOwn(EXPECTED, x.stack))) {
      const on18 = t.postgres === 18 ? ON_POSTGRES_18[t.stack] : undefined;
      // A cell the target declares varying (compatibility-targets.ts) holds one of its outcomes.
      const varies = t.varies ?? {};
      const steady = (o: Record<string, string | null>) =>
        Object.fromEntries(Object.entries(o).filter(([id]) => !Object.hasOwn(varies, id)));
      const got = comparable(column(committed, t.name));
      expect(steady(got), t.name).toEqual(steady({ ...EXPECTED[t.stack], ...on18 }));
      for (const [id, v] of Object.entries(varies)) expect(v.outcomes, `${t.name} ${id}`).toContain(got[id]);
    }
  });

  test('the Markdown and HTML pages are renderings of the committed JSON', () => {
    mkdirSync(path.join(dir, 'docs'), { recursive: true });
    writeCompatibility(committed, dir);
    for (const file of [COMPAT_FILES.markdown, COMPAT_FILES.html]) {
      expect(readFileSync(path.join(dir, file), 'utf8'), file).toBe(readFileSync(path.join(REPO, file), 'utf8'));
    }
  });

  test("a cell the fixture explains carries its note: pgpool-II's ignored cancel, both children busy", () => {
    const md = readFileSync(path.join(REPO, COMPAT_FILES.markdown), 'utf8');
    const cancel = md.split('\n').find((l) => l.startsWith('| `cancel/routing` |'));
    expect(cancel).toMatch(/`ignored`/);
    expect(md).toMatch(/^- pgpool-II 4\.3, `cancel\/routing`: .*two \(`num_init_children = 2`\).*both busy/m);
    const html = readFileSync(path.join(REPO, COMPAT_FILES.html), 'utf8');
    expect(html).toMatch(/<section id="notes">.*<code>cancel\/routing<\/code>: .*num_init_children = 2/);
    // The README says what pgpool-II is, and why that cell says `ignored`.
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    expect(readme).toMatch(/\| pgpool-II \| \*\*not a transaction pooler\*\*/);
    expect(readme).toMatch(
      /pgpool-II's `cancel\/routing` is `ignored`[\s\S]{0,200}both of the fixture's two children are busy/,
    );
    // Every note names a check that exists, so a renamed check cannot drop its note unseen.
    const ids = new Set(committed.rows.map((r) => r.id));
    for (const t of COMPAT_TARGETS)
      for (const id of Object.keys(t.footnotes ?? {})) expect(ids.has(id), `${t.name}: ${id}`).toBe(true);
  });

  test('every fixture variant has a column run below (catalogue.test.ts leaves the variants to this file)', () => {
    const runnable = COMPAT_RUNNABLE.map((t) => t.stack);
    expect(Object.keys(VARIANTS).filter((v) => !runnable.includes(v as CompatTarget['stack']))).toEqual([]);
  });

  describe.each(COMPAT_RUNNABLE.filter((t) => Object.hasOwn(VARIANTS, t.stack)))('variant $name', (t) => {
    test(
      'a fresh run of the whole catalogue gives the committed column',
      { retry: 1, timeout: 2 * RUN_BOUND_MS + 60_000 },
      async () => {
        const fresh = await expectFreshColumn(t);
        for (const [id, outcome] of Object.entries(VARIANTS[t.stack]!))
          expect(`${id}: ${fresh.outcomes[id]}`).toBe(`${id}: ${outcome}`);
      },
    );
  });

  // The source-built poolers' columns: a full run is 45 to 150 s each (measured on 2 busy cores),
  // too much for all ten in every suite run. Each run takes the PgBouncer 1.25 transaction column
  // (its profile must pass: the --profile gate users copy) and one more, rotating by UTC day, so
  // every column is re-checked within a week and a run costs about two minutes.
  // POOLTEST_COMPAT_SOURCE_COLUMNS=all runs them all.
  describe.each(sourceColumns())('pooler built from source: $name', (t) => {
    test.skipIf(UNAVAILABLE[t.name] !== null)(
      `a fresh run of the whole catalogue gives the committed column, its profile passing${UNAVAILABLE[t.name] ? ` (skipped: ${UNAVAILABLE[t.name]})` : ''}`,
      // In the options: vitest 4 takes no timeout argument after them (the old one was ignored).
      // Two runs (one retry of a loaded run) at the column's bound, and the fixture's start.
      { retry: 1, timeout: 2 * (t.runBoundMs ?? RUN_BOUND_MS) + 60_000 },
      async () => {
        const fresh = await expectFreshColumn(t);
        if (t.profile !== null)
          expect(fresh.report.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.id}: ${c.outcome}`)).toEqual(
            [],
          );
      },
    );
  });

  // Columns that cannot be run yet (none now; `pending` in compatibility-targets.ts), shown as skipped with
  // the reason. A cell that cannot conclude or varies is no reason to hold a column back: see compatibility-rules.ts.
  describe.each(COMPAT_TARGETS.filter((t) => t.pending !== undefined))('pending column $name', (t) => {
    test.skip(`a fresh run of the whole catalogue gives the committed column (skipped: ${t.pending})`, async () => {
      await expectFreshColumn(t);
    });
  });
});

function sourceColumns(): CompatTarget[] {
  const all = COMPAT_RUNNABLE.filter((t) => t.group !== 'debian');
  if (process.env.POOLTEST_COMPAT_SOURCE_COLUMNS === 'all') return all;
  const always = all.filter((t) => t.stack === 'pgbouncer-1.25-transaction');
  const others = all.filter((t) => !always.includes(t));
  const day = Math.floor(Date.now() / 86_400_000);
  return others.length === 0 ? always : [...always, others[day % others.length]!];
}

// A machine without the tarballs or the build tools skips these columns and says why (the first
// run on a machine that has them builds the poolers: minutes, once).
const UNAVAILABLE: Record<string, string | null> = Object.fromEntries(
  await Promise.all(
    sourceColumns().map(async (t) => [t.name, await poolerBuildUnavailable(sourcePoolerOf(t.stack)!)] as const),
  ),
);

/**
 * Runs `t` afresh and holds it to its committed column (compatibility-rules.ts: same outcome, an
 * outcome of a varying cell's set, the declared reason of a cell that cannot conclude, at most
 * two answered checks left inconclusive by load). A run with undeclared inconclusive checks is
 * CPU load from elsewhere on a shared machine: it gets one more run.
 */
async function expectFreshColumn(
  t: CompatTarget,
): Promise<{ report: Report; outcomes: Record<string, string | null> }> {
  const want = committedColumn(committed, t.name);
  let fresh = await runTarget(t);
  const undeclared = (r: Report): number =>
    r.checks.filter((c) => c.verdict === 'inconclusive' && !t.inconclusive?.[c.id]).length;
  if (undeclared(fresh) > 0 || fresh.checks.length !== committed.rows.length) fresh = await runTarget(t);
  expect(freshProblems(t, want, fresh)).toEqual([]);
  return { report: fresh, outcomes: Object.fromEntries(fresh.checks.map((c) => [c.id, c.outcome])) };
}

type FakeCheck = { id: string; outcome: string | null; verdict: string; reason: string };
