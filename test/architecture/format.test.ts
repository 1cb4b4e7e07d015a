/**
 * One formatting standard for the tree: Prettier with .prettierrc.json (line width 120), over
 * every file it is configured for (.prettierignore leaves out generated and recorded data and
 * hand-wrapped prose). `npm run format` fixes what this reports.
 */
import { execFile, execFileSync } from 'node:child_process';
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

/**
 * `prettier --check` over `files` in a child process: the paths it reports as unformatted, or
 * what it said when it could not check (a parse error exits 2).
 */
function checkInChild(files: string[]): Promise<string[]> {
  return new Promise((resolve) => {
    execFile(
      path.join(REPO, 'node_modules/.bin/prettier'),
      ['--check', '--ignore-path', path.join(REPO, '.prettierignore'), ...files],
      { cwd: REPO, maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (error === null) return resolve([]);
        const warned = [...stderr.matchAll(/^\[warn\] (.+)$/gm)]
          .map((m) => m[1]!)
          .filter((f) => !f.startsWith('Code style issues'));
        resolve(error.code === 1 && warned.length > 0 ? warned : [`prettier exited ${error.code}: ${stderr}`]);
      },
    );
  });
}

describe('formatting', () => {
  test('every source file is formatted as Prettier formats it (run `npm run format`)', async () => {
    const files = await formattable();
    expect(files.length).toBeGreaterThan(200);
    // Two Prettier processes, half the files each: the check is all CPU (about 22 s of it),
    // and one process on a 2-core machine kept busy (load 22, issue 21) took 160 s.
    const half = Math.ceil(files.length / 2);
    const unformatted = (
      await Promise.all([checkInChild(files.slice(0, half)), checkInChild(files.slice(half))])
    ).flat();
    expect(unformatted).toEqual([]);
  }, 120_000);

  test('control: a line past the width is reported', async () => {
    const file = path.join(REPO, 'engine', 'example.ts');
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    expect(await prettier.check(`export const x = [${'"aaaaaaaaaa", '.repeat(20)}];\n`, options)).toBe(false);
  });
});
