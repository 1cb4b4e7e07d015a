/**
 * The run history: every run's reports under `.pooltest/runs/<time>/` in the current folder,
 * and `.pooltest/latest` pointing at the newest, so `pooltest diff` always has something to
 * compare with. `latest` is a relative symlink, replaced atomically (a new link renamed over
 * the old one) so a reader never finds it missing; where the file system refuses symlinks it
 * is a one-line text file naming the folder instead. A `.gitignore` keeps the history out of
 * the user's commits unless they decide otherwise. Only the newest {@link KEEP_RUNS} runs are
 * kept: each stored run removes the run folders older than those (anything else in `runs/`,
 * which pooltest did not name, is left alone).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

/** How many runs the history keeps (each about 1 MB with the HTML report): the newest. */
export const KEEP_RUNS = 20;

/** A run folder's name as {@link folderName} and freeName make it. */
const RUN_FOLDER = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z(-\d+)?$/;

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
  const stored: StoredRun = { dir, latest: pointLatest(root, `runs/${name}`) };
  pruneRuns(runs, name);
  return stored;
}

/**
 * Removes run folders beyond the newest {@link KEEP_RUNS} (never `current`, the one just
 * stored). Names sort by start time, `-2` after its plain twin. Best effort: a folder another
 * run is removing at the same moment, or one that cannot be removed, is no error.
 */
function pruneRuns(runs: string, current: string): void {
  const byAge = readdirSync(runs)
    .filter((n) => RUN_FOLDER.test(n))
    .sort((a, b) => (runKey(a) < runKey(b) ? -1 : runKey(a) > runKey(b) ? 1 : 0));
  for (const old of byAge.slice(0, Math.max(0, byAge.length - KEEP_RUNS)))
    if (old !== current) rmSync(path.join(runs, old), { recursive: true, force: true, maxRetries: 0 });
}

/** Sort key: the time, then the same-millisecond counter as a number (`-10` after `-9`). */
function runKey(name: string): string {
  const m = /^(.*Z)(?:-(\d+))?$/.exec(name)!;
  return `${m[1]}#${(m[2] ?? '1').padStart(6, '0')}`;
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
