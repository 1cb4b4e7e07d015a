/**
 * A check's step tags are declared once, as constants (a check's own `TAGS`, or
 * engine/record/tags.ts for the shared ones), and its scenario and judge both use them: a tag
 * written as a string at a `.run(...)` call is one the judge may spell differently, and then it
 * finds no step and the check is inconclusive for no visible reason. This reads every check file
 * for a step run (`.run`, `.runPrepared`, and a wire session's `.exchange` and `.sendOnly`, whose
 * tag may be a list) whose tag is a quoted string or a template.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { REPO } from '../support/cli.js';

/** A step run whose first argument is (or lists first) a string or template literal, across line breaks. */
const LITERAL_TAG = /\.(?:run|runPrepared|exchange|sendOnly)\(\s*\[?\s*(['"`][^'"`]*['"`])/g;

/** The literal tags of `source`, each with the line of its call. */
export function literalTags(source: string): string[] {
  return [...source.matchAll(LITERAL_TAG)].map((m) => `line ${source.slice(0, m.index).split('\n').length}: ${m[1]}`);
}

function checkFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return checkFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

test('no check runs a step under a tag written as a literal', () => {
  const files = checkFiles(path.join(REPO, 'suites'));
  expect(files.length).toBeGreaterThan(25);
  const found = files.flatMap((f) => literalTags(readFileSync(f, 'utf8')).map((t) => `${path.relative(REPO, f)} ${t}`));
  expect(found).toEqual([]);
});

test('control: literal tags are found, on one line or the next, and constants are not', () => {
  const source = [
    "await a.run(TAGS.begin, 'BEGIN');",
    "await a.run('A.commit', 'COMMIT');",
    'await s.run(`${tag}.cycle`, sql);',
    'await o.session.runPrepared(',
    "  'observe.prepare',",
    '  p, TEXT);',
    'await a.run(LANDING_TAGS.readback, `SELECT 1`);',
    "await a.exchange('A.pipe', [fe.sync()]);",
    'await a.exchange(',
    '  [`${PIPELINE_TAGS.pipe}.1`],',
    '  [fe.sync()]);',
    "a.sendOnly('A.inflight', [fe.sync()]);",
    'await a.exchange(PIPELINE_TAGS.pipe, [fe.query(`SELECT 1`)]);',
    'await a.exchange([segmentTag(PIPELINE_TAGS.pipe, 1)], []);',
  ].join('\n');
  expect(literalTags(source)).toEqual([
    "line 2: 'A.commit'",
    'line 3: `${tag}.cycle`',
    "line 4: 'observe.prepare'",
    "line 8: 'A.pipe'",
    'line 9: `${PIPELINE_TAGS.pipe}.1`',
    "line 12: 'A.inflight'",
  ]);
});
