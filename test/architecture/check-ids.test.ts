/**
 * A check id is spelled out in code only in its own check file: everything else (the audit's
 * classifiers, watch, reporters, the CLI) derives ids from the catalogue, so a renamed or
 * removed check cannot leave a stale copy behind. Profiles, tests, bench tooling and docs are
 * outside the scan; so are comments, where an id is an example for the reader.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { CHECK_IDS } from '../../suites/labels.js';
import { REPO } from '../support/cli.js';

/** The product's code folders (profiles map ids to expectations by design). */
const SCANNED = ['engine', 'suites', 'audit', 'watch', 'runner', 'reporters', 'cli', 'fixtures'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

/** Ids written as the start of a string literal (`'id'`, `"id"`, `` `id... ``) on code lines of `source`. */
export function spelledIds(source: string, ids: readonly string[]): { line: number; id: string }[] {
  const alternatives = ids.map((id) => id.replace(/[-/]/g, '\\$&')).join('|');
  const literal = new RegExp(`['"\`](${alternatives})(?![a-z0-9-])`, 'g');
  const found: { line: number; id: string }[] = [];
  source.split('\n').forEach((text, i) => {
    const code = text.trim();
    if (code.startsWith('*') || code.startsWith('/*') || code.startsWith('//')) return;
    for (const match of text.matchAll(literal)) found.push({ line: i + 1, id: match[1]! });
  });
  return found;
}

function misplaced(): string[] {
  const bad: string[] = [];
  for (const folder of SCANNED) {
    for (const file of sourceFiles(path.join(REPO, folder))) {
      const relative = path.relative(REPO, file);
      for (const { line, id } of spelledIds(readFileSync(file, 'utf8'), CHECK_IDS)) {
        if (relative !== `suites/${id}.check.ts`) bad.push(`${relative}:${line} spells ${id}`);
      }
    }
  }
  return bad;
}

describe('check ids live in their check files', () => {
  test('no code outside a check file spells a check id', () => {
    expect(misplaced()).toEqual([]);
  });

  test('control: the scanner finds ids in literals and skips comments and longer names', () => {
    const src = [
      "  check: 'notify/listen',",
      '  const key = `prepared/protocol-named\\u0000${text}`;',
      ' * `notify/listen` in a comment',
      "  // 'notify/listen' in a line comment",
      "  check: 'notify/listen-extra',",
    ].join('\n');
    expect(spelledIds(src, ['notify/listen', 'prepared/protocol-named'])).toEqual([
      { line: 1, id: 'notify/listen' },
      { line: 2, id: 'prepared/protocol-named' },
    ]);
  });
});
