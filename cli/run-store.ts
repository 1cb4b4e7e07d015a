/**
 * The run history: every run's reports under `.pooltest/runs/<time>/` in the current folder,
 * and `.pooltest/latest` pointing at the newest, so `pooltest diff` always has something to
 * compare with. `latest` is a relative symlink, replaced atomically (a new link renamed over
 * the old one) so a reader never finds it missing; where the file system refuses symlinks it
 * is a one-line text file naming the folder instead. A `.gitignore` keeps the history out of
 * the user's commits unless they decide otherwise.
 */
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where a run was stored. */
export interface StoredRun {
  /** The run's folder. */
  dir: string;
  /** How `latest` points at it: a symlink, or a file naming the folder. */
  latest: 'symlink' | 'file';
}

/** The history folder, relative to `cwd`. */
export const STORE_DIR = '.pooltest';

/**
 * Writes `files` (name to content) into a new folder named after `startedAt` and points
 * `latest` at it. Throws on failure; the caller decides whether that matters.
 */
export function storeRun(files: Record<string, string>, startedAt: string, cwd = process.cwd()): StoredRun {
  const root = path.join(cwd, STORE_DIR);
  const runs = path.join(root, 'runs');
  mkdirSync(runs, { recursive: true });
  const gitignore = path.join(root, '.gitignore');
  if (!existsSync(gitignore))
    writeFileSync(gitignore, '# pooltest run history (pooltest --no-store to keep none)\n*\n');
  const name = freeName(runs, folderName(startedAt));
  const dir = path.join(runs, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return { dir, latest: pointLatest(root, `runs/${name}`) };
}

/** `2026-05-04T03:02:01.123Z` becomes `2026-05-04T03-02-01.123Z`: sortable, and no colons. */
export function folderName(startedAt: string): string {
  return startedAt.replace(/:/g, '-');
}

/** Two runs in the same millisecond (parallel CI jobs in one folder) get `-2`, `-3`... */
function freeName(runs: string, base: string): string {
  let name = base;
  for (let n = 2; existsSync(path.join(runs, name)); n++) name = `${base}-${n}`;
  return name;
}

function pointLatest(root: string, relative: string): StoredRun['latest'] {
  const latest = path.join(root, 'latest');
  const tmp = path.join(root, `latest.${process.pid}.tmp`);
  rmSync(tmp, { force: true });
  try {
    symlinkSync(relative, tmp, 'dir');
    renameSync(tmp, latest);
    return 'symlink';
  } catch {
    rmSync(tmp, { force: true });
    writeFileSync(tmp, `${relative}\n`);
    renameSync(tmp, latest);
    return 'file';
  }
}
