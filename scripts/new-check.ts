/**
 * `npm run new-check -- area/name`: scaffolds a check, so that a new one needs by hand only its
 * check file (scenario and judge) and its judge test; its outcomes on the fixtures are written
 * once, by `npm run record`, and the fixtures' profiles are derived from the recordings
 * (docs/writing-checks.md). It writes
 *   suites/<area>/<name>.check.ts        a working state check (the shared scenario and judge) on a
 *                                        custom setting of pooltest's own, TODOs where the real
 *                                        behaviour goes
 *   suites/<area>/<name>.test.ts         the three lines that hand it to Vitest (checkTest)
 *   test/judges/<area>-<name>.test.ts    its judge on hand-built records, one per label it reaches
 * adds it to the end of suites/<area>/index.ts (its place in the report), formats the files with
 * prettier and runs `npm run docs` (build, then the README and INTERPRETING tables). A new area
 * gets its index.ts, and its place at the end of the report in suites/catalogue.ts.
 * test/architecture/new-check.test.ts runs this in a copy of the repository, records the check
 * as `npm run record` would, and runs the pipeline.
 * `--no-docs` skips the last step (the build and the tables).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { areaIndex, withAreaInCatalogue, withCheckInIndex } from './new-check-lists.js';

/**
 * Where the generated files' imports point, interpolated so that the layer test's import
 * scanner does not read this script's templates as its own imports.
 */
const ROOT = '../..';
const SUPPORT = '../support';
const HERE = '.';

const ID = /^([a-z]+)\/([a-z][a-z-]*[a-z])$/;

/** The files a scaffold writes or changes, relative to the repository. */
export interface Scaffold {
  written: string[];
  changed: string[];
}

/** `session/my-check` as `myCheck`. */
export function constName(name: string): string {
  return name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** Writes the scaffold of check `id` into the repository at `root`; throws with the reason it cannot. */
export function scaffoldCheck(root: string, id: string): Scaffold {
  const m = ID.exec(id);
  if (!m) throw new Error(`"${id}" is not a check id: area/name, lower-case words joined by "-"`);
  const [, area, name] = m as unknown as [string, string, string];
  const index = path.join(root, 'suites', area, 'index.ts');
  const newArea = !existsSync(index);
  const files = {
    check: `suites/${area}/${name}.check.ts`,
    entry: `suites/${area}/${name}.test.ts`,
    judge: `test/judges/${area}-${name}.test.ts`,
  };
  for (const f of Object.values(files))
    if (existsSync(path.join(root, f))) throw new Error(`${f} exists already: check ${id} is not new`);
  const ident = constName(name);
  const catalogue = path.join(root, 'suites', 'catalogue.ts');
  const catalogueText = readFileSync(catalogue, 'utf8');
  if (newArea && catalogueText.includes(`'./${area}/index.js'`))
    throw new Error(`suites/catalogue.ts imports ./${area}/index.js, which does not exist: repair it first`);
  const indexText = newArea ? areaIndex(area, name, ident) : readFileSync(index, 'utf8');
  if (!newArea && new RegExp(`\\b${ident}\\b`).test(indexText))
    throw new Error(`suites/${area}/index.ts already has a ${ident}: choose another name`);

  if (newArea) {
    mkdirSync(path.dirname(index), { recursive: true });
    writeFileSync(index, indexText);
    writeFileSync(catalogue, withAreaInCatalogue(catalogueText, area));
  } else writeFileSync(index, withCheckInIndex(indexText, name, ident, area));
  writeFileSync(path.join(root, files.check), checkFile(id, area, name, ident));
  writeFileSync(path.join(root, files.entry), entryFile(name, ident));
  writeFileSync(path.join(root, files.judge), judgeTestFile(id, area, name, ident));
  return newArea
    ? { written: [...Object.values(files), `suites/${area}/index.ts`], changed: ['suites/catalogue.ts'] }
    : { written: Object.values(files), changed: [`suites/${area}/index.ts`] };
}

function checkFile(id: string, area: string, name: string, ident: string): string {
  const setting = `pooltest.${area}_${name.replace(/-/g, '_')}`;
  const read = `coalesce(current_setting('${setting}', true), '')`;
  return `/**
 * ${id}: TODO the behaviour, as a question (does X stay with the client that set it?).
 *
 *   A:  SELECT pg_backend_pid() AS pid; SET ${setting} = '<marker>'      -- backend b1
 *   O:  [BEGIN;] SELECT pg_backend_pid() AS pid;                          -- lands on b1
 *       SELECT ${read} AS seen
 *   A:  SELECT pg_backend_pid() AS pid, ${read} AS mine                   -- elsewhere
 *
 * Written by \`npm run new-check -- ${id}\`: a working state check (the shared scenario and
 * judge, INTERPRETING.md section 4) on a custom setting of pooltest's own. TODO: replace the
 * setting with the state this check is about, say here why an application cares and what the
 * pooler's documentation says, and keep the SQL sequence above exact.
 */
import { defineCheck } from '${ROOT}/engine/execute/check.js';
import { judgeState } from '${ROOT}/engine/judging/state-judge.js';
import { stateOutcomes } from '${ROOT}/engine/judging/state-outcomes.js';
import { markerOf, valueOf } from '${ROOT}/engine/record/step-reading.js';
import { markersFor } from '${ROOT}/engine/record/markers.js';
import { runStateScenario, STATE_SCENARIO } from '${ROOT}/engine/steering/state-scenario.js';
import type { StepRecord } from '${ROOT}/engine/types.js';

export const ${ident} = defineCheck({
  id: '${id}',
  // TODO: the title and summary say what is checked in a reader's words (README's table shows the summary).
  title: 'TODO: a custom setting stays with the client that set it',
  summary: 'TODO: \`SET ${setting}\`; does the next client on that backend inherit it',
  // TODO: security, correctness or availability: what an application loses when it breaks.
  severity: 'correctness',
  // TODO: pinned references (a versioned URL, or owner/repo@commit:path) for what is checked.
  docs: ['https://www.postgresql.org/docs/15/runtime-config-custom.html'],
  // The state vocabulary; every label that breaks an application needs advice a developer can act on.
  outcomes: stateOutcomes({
    leaked: 'TODO: what to do when another client sees this state (for a setting: SET LOCAL inside the transaction).',
    lost: 'TODO: what to do when the pooler resets this state between transactions.',
    pinned: 'TODO: the pooler pins the client after this statement, losing multiplexing for it.',
    rejected: 'TODO: what to do when the pooler refuses the statement.',
  }),
  // The shared state scenario: the check rests on its landing (an observer on the backend A
  // created the state on) without stating it.
  uses: STATE_SCENARIO,
  async scenario(scn) {
    // Markers are unique to the run and the check; the judge reads them from the record.
    const marker = markersFor(scn.ctx.runId, this.id).tag;
    scn.recordMarkers({ setting: marker });
    await runStateScenario(scn, {
      create: \`SET ${setting} = '\${marker}'\`,
      observe: [\`SELECT ${read} AS seen\`],
      readback: \`SELECT ${read} AS mine\`,
      // Guarded by the marker, so nothing else on a shared backend is touched.
      cleanup: \`IF ${read} = '\${marker}' THEN RESET ${setting}; END IF;\`,
    });
  },
  judge(steps, discovery) {
    const marker = markerOf(steps, 'setting');
    // null (no reading, or no marker in the record) makes the judge inconclusive, never a guess.
    const holds = (step: StepRecord, column: string): boolean | null => {
      const v = valueOf(step, column);
      return typeof v === 'string' && marker !== '' ? v === marker : null;
    };
    return judgeState(steps, discovery, {
      seenByOther: (take) => holds(take, 'seen'),
      keptByA: (readback) => holds(readback, 'mine'),
      show: (step) => \`${setting} = \${String(valueOf(step, 'seen') ?? valueOf(step, 'mine'))}\`,
    });
  },
});
`;
}

function entryFile(name: string, ident: string): string {
  return `import { checkTest } from '${ROOT}/runner/vitest-check.js';
import { ${ident} } from '${HERE}/${name}.check.js';

checkTest(${ident});
`;
}

function judgeTestFile(id: string, area: string, name: string, ident: string): string {
  return `/**
 * ${id}: its judge on records of the shared state scenario written by hand (stateRecord), one
 * per label it can reach, and the paths on which it must not conclude. Written by
 * \`npm run new-check\`. Once \`npm run record -- test/recorded ${id}\` has recorded it on the
 * fixtures (which also states its outcome there, once, for their profiles and the catalogue
 * test): TODO judge those runs here against what each pooler documents, each with the line of
 * the record that decides it (as session-lock-timeout-leak.test.ts does).
 */
import { describe, expect, test } from 'vitest';
import { ${ident} } from '${ROOT}/suites/${area}/${name}.check.js';
import { recorded } from '${SUPPORT}/recorded.js';
import { stateRecord } from '${SUPPORT}/state-recorded.js';
import type { Discovery } from '${ROOT}/engine/types.js';

const MARKER = 'pooltest-0123abcd-${area}-${name}';
const direct = recorded('direct').discovery;
const transaction = recorded('pgbouncer-transaction').discovery;

/** A's backend is 101; one observer on \`observer\` reads \`seen\`; A's next transaction on \`next\` reads \`mine\`. */
function judge(o: { observer: number; seen: string; next: number; mine: string }, discovery: Discovery) {
  const steps = stateRecord({
    markers: { setting: MARKER },
    createPid: 101,
    observers: [{ pid: o.observer, row: { seen: o.seen } }],
    readback: { pid: o.next, row: { mine: o.mine } },
  });
  return ${ident}.judge(steps, discovery);
}

describe('${id}: judge', () => {
  test('session: on a direct connection A keeps its value on its own backend, and the observer elsewhere sees none', () => {
    expect(judge({ observer: 102, seen: '', next: 101, mine: MARKER }, direct).outcome).toBe('session');
  });
  test("leaked: the observer on A's old backend reads A's value", () => {
    expect(judge({ observer: 101, seen: MARKER, next: 102, mine: '' }, transaction).outcome).toBe('leaked');
  });
  test('lost: the old backend is clean and A lost its value elsewhere', () => {
    expect(judge({ observer: 101, seen: '', next: 102, mine: '' }, transaction).outcome).toBe('lost');
  });
  test('tracked: the old backend is clean and A still has its value elsewhere', () => {
    expect(judge({ observer: 101, seen: '', next: 102, mine: MARKER }, transaction).outcome).toBe('tracked');
  });
  test('rejected: the statement failed with an SQLSTATE', () => {
    const steps = stateRecord({
      markers: { setting: MARKER },
      createPid: 101,
      createError: { code: '0A000', message: 'SET is not supported' },
      observers: [],
      readback: { pid: 102, row: { mine: '' } },
    });
    expect(${ident}.judge(steps, transaction).outcome).toBe('rejected');
  });
  test('inconclusive: a record without its marker proves nothing', () => {
    const steps = stateRecord({
      createPid: 101,
      observers: [{ pid: 101, row: { seen: MARKER } }],
      readback: { pid: 102, row: { mine: '' } },
    });
    expect(${ident}.judge(steps, transaction).outcome).toBeNull();
  });
  test('inconclusive: A moved and nobody looked at its old backend', () => {
    expect(judge({ observer: 103, seen: '', next: 102, mine: '' }, transaction).outcome).toBeNull();
  });
});
`;
}

function run(root: string, command: string, args: string[]): void {
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

function main(argv: string[]): number {
  const docs = !argv.includes('--no-docs');
  const ids = argv.filter((a) => a !== '--no-docs');
  if (ids.length !== 1) {
    process.stderr.write('usage: npm run new-check -- area/name [--no-docs]\n');
    return 2;
  }
  const root = process.cwd();
  let made: Scaffold;
  try {
    made = scaffoldCheck(root, ids[0]!);
  } catch (error) {
    process.stderr.write(`new-check: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  // Formatted as the repository is (test/architecture/format.test.ts checks every file).
  run(root, process.execPath, [
    path.join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'),
    '--write',
    '--log-level',
    'warn',
    ...made.written,
    ...made.changed,
  ]);
  if (docs) run(root, 'npm', ['run', '--silent', 'docs']);
  process.stdout.write(
    [
      `new-check: wrote ${made.written.join(', ')}; added it to ${made.changed.join(', ')}${docs ? '; regenerated README.md and INTERPRETING.md' : ''}.`,
      'Next (docs/writing-checks.md): write the scenario and judge in the check file and its judge test, then',
      `npm run record -- test/recorded ${ids[0]} (its outcome on each fixture, once: the fixtures' profiles and`,
      'the catalogue test read it) and npm run docs. A profile of a pooler no fixture runs gets a line by hand.',
      '',
    ].join('\n'),
  );
  return 0;
}

// Run as a script (node dist/scripts/new-check.js), not when imported by a test.
if (process.argv[1] && path.resolve(process.argv[1]).endsWith(path.join('scripts', 'new-check.js')))
  process.exitCode = main(process.argv.slice(2));
