/**
 * One formatting standard for the tree: Prettier with .prettierrc.json (line width 120), over
 * every file it is configured for (.prettierignore leaves out generated and recorded data and
 * hand-wrapped prose). `npm run format` fixes what this reports.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, test } from 'vitest';
import { REPO } from '../support/cli.js';

/** Files git tracks (and new ones not ignored) that Prettier can format and is not told to skip. */
async function formattable(): Promise<string[]> {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
  const out: string[] = [];
  for (const rel of listed) {
    if (!/\.(ts|mts|mjs|js|json)$/.test(rel)) continue;
    const info = await prettier.getFileInfo(path.join(REPO, rel), { ignorePath: path.join(REPO, '.prettierignore') });
    if (!info.ignored && info.inferredParser) out.push(rel);
  }
  return out;
}

describe('formatting', () => {
  test('every source file is formatted as Prettier formats it (run `npm run format`)', async () => {
    const files = await formattable();
    expect(files.length).toBeGreaterThan(200);
    const unformatted: string[] = [];
    for (const rel of files) {
      const file = path.join(REPO, rel);
      const options = { ...(await prettier.resolveConfig(file)), filepath: file };
      if (!(await prettier.check(readFileSync(file, 'utf8'), options))) unformatted.push(rel);
    }
    expect(unformatted).toEqual([]);
  }, 120_000);

  test('control: a line past the width is reported', async () => {
    const file = path.join(REPO, 'engine', 'example.ts');
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    expect(await prettier.check(`export const x = [${'"aaaaaaaaaa", '.repeat(20)}];\n`, options)).toBe(false);
  });
});
