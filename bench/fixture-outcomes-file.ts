/**
 * Writes profiles/fixture-outcomes.ts from the recorded runs in test/recorded: what each fixture
 * showed, check by check, as the recordings say it. The recorders (record-logs.ts,
 * record-state-logs.ts, record-traffic.ts) call it after writing test/recorded, so a fixture's
 * outcome is stated once, by a run, and the fixtures' observed profiles are derived from it
 * (profiles/observed-on-fixture.ts). test/profiles/fixture-outcomes.test.ts fails when the
 * committed file and the recordings differ.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOGUE } from '../suites/catalogue.js';

/** The fixtures whose recorded runs the built-in profiles of the same names are derived from. */
export const RECORDED_FIXTURES = [
  'direct',
  'pgbouncer-transaction',
  'pgbouncer-session',
  'pgbouncer-statement',
  'pgpool',
] as const;

/** Where the derived table lives, relative to the repository. */
export const FIXTURE_OUTCOMES_FILE = 'profiles/fixture-outcomes.ts';

interface RecordedFile {
  fixture?: string;
  checks?: Record<string, { outcome: string | null }>;
}

/**
 * Each fixture's outcome per check, merged from every catalogue recording of that fixture
 * (`<fixture>.json`, `-state.json`, `-traffic.json`), in catalogue order. Two recordings of one
 * fixture that disagree on a check throw: which one holds is for a person to settle.
 */
export function recordedOutcomes(recordedDir: string): Record<string, Record<string, string | null>> {
  const byFixture = new Map<string, Map<string, { outcome: string | null; file: string }>>(
    RECORDED_FIXTURES.map((f) => [f, new Map()]),
  );
  for (const file of readdirSync(recordedDir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const data = JSON.parse(readFileSync(path.join(recordedDir, file), 'utf8')) as RecordedFile;
    const seen = data.fixture === undefined ? undefined : byFixture.get(data.fixture);
    if (!seen || !data.checks) continue;
    for (const [id, { outcome }] of Object.entries(data.checks)) {
      const before = seen.get(id);
      if (before && before.outcome !== outcome)
        throw new Error(`${id} on ${data.fixture}: ${before.file} recorded ${before.outcome}, ${file} ${outcome}`);
      seen.set(id, { outcome, file });
    }
  }
  const order = CATALOGUE.map((c) => c.id as string);
  return Object.fromEntries(
    [...byFixture].map(([fixture, seen]) => [
      fixture,
      Object.fromEntries(
        [...seen].sort(([a], [b]) => rank(order, a) - rank(order, b)).map(([id, { outcome }]) => [id, outcome]),
      ),
    ]),
  );
}

/** A check's place in the catalogue; recorded checks the catalogue no longer has go last. */
function rank(order: string[], id: string): number {
  const i = order.indexOf(id);
  return i < 0 ? order.length : i;
}

/** An object key as prettier writes it: quoted only where it must be. */
function key(k: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`;
}

/** The text of profiles/fixture-outcomes.ts for the recordings in `recordedDir`. */
export function fixtureOutcomesText(recordedDir: string): string {
  const table = recordedOutcomes(recordedDir);
  const body = Object.entries(table)
    .map(([fixture, checks]) => {
      const rows = Object.entries(checks).map(([id, o]) => `    ${key(id)}: ${o === null ? 'null' : `'${o}'`},`);
      return [`  ${key(fixture)}: {`, ...rows, '  },'].join('\n');
    })
    .join('\n');
  return `/**
 * What each fixture showed, check by check, in its recorded runs (test/recorded/<fixture>.json,
 * -state.json and -traffic.json); null where the recorded run was inconclusive. Written by the
 * recorders (\`npm run record\`, bench/fixture-outcomes-file.ts), never by hand:
 * test/profiles/fixture-outcomes.test.ts fails when it and the recordings differ. The build
 * holds every outcome to its check's labels; the fixtures' observed profiles are derived from
 * it (profiles/observed-on-fixture.ts), and so are the catalogue test's expectations.
 */
import type { RecordedOutcomes } from './catalogue-profile.js';

export const FIXTURE_OUTCOMES = {
${body}
} as const satisfies Readonly<Record<string, RecordedOutcomes>>;
`;
}

/** Rewrites profiles/fixture-outcomes.ts in the repository at `root` from its test/recorded. */
export function writeFixtureOutcomes(root: string): string {
  const file = path.join(root, FIXTURE_OUTCOMES_FILE);
  writeFileSync(file, fixtureOutcomesText(path.join(root, 'test/recorded')));
  return file;
}

/**
 * Called by each recorder once it has written `out`: when that is the repository's own
 * test/recorded (run from the repository, as `npm run record` is), the derived table follows it.
 */
export function afterRecording(out: string): void {
  const root = process.cwd();
  if (path.resolve(out) !== path.join(root, 'test/recorded')) return;
  process.stdout.write(`rewrote ${path.relative(root, writeFixtureOutcomes(root))} from test/recorded\n`);
}
