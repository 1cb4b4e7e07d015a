/**
 * The project's own tests on a machine kept busy on purpose (issue 21): CI runs on two cores
 * that other work shares, and a test that holds only on a quiet machine blocks the project at
 * random. While Vitest runs, `--cpu N` processes spin at the lowest priority (`nice -n 19`):
 * stress-ng from Debian when it is installed, else busy Node processes. Low priority keeps the
 * machine responsive while still taking every cycle the tests leave idle, which is what a
 * shared CI machine does to timing.
 *
 *   node dist/scripts/load-test.js                 the whole suite, under load (npm run test:loaded)
 *   node dist/scripts/load-test.js --ci            only the timing-dependent files (npm run test:loaded:ci)
 *   node dist/scripts/load-test.js --runs 3        three runs in a row, stopping at the first failure
 *   node dist/scripts/load-test.js --cpu 0 --ci    the same files, quiet (to compare times)
 *   node dist/scripts/load-test.js -- test/x.test.ts   these files only
 *
 * The load is bounded twice: stress-ng gets `--timeout`, a busy Node process ends itself at the
 * same deadline, and both are stopped (by process group) when Vitest ends, fails, or this
 * script is interrupted. After each run it prints every file's time (slowest first) and each
 * project's sum; at the very end, the wall time of every run and the slowest 10 files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { FileTime } from './file-times-reporter.js';
import { TIMING_DEPENDENT } from './test-groups.js';

const REPO = path.resolve(import.meta.dirname, '../..');
/** The load outlives no run by more than this: a stuck Vitest still leaves the CPU free later. */
const LOAD_LIMIT_S = 45 * 60;

function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const full = path.join(dir, name);
    try {
      accessSync(full, constants.X_OK);
      return full;
    } catch {
      // not in this folder
    }
  }
  return null;
}

/** Starts `cpus` busy processes at nice 19, each in its own process group; returns how to stop them. */
function startLoad(cpus: number): { how: string; stop(): void } {
  if (cpus <= 0) return { how: 'no load', stop: () => undefined };
  const stressNg = findOnPath('stress-ng');
  const children: ChildProcess[] = [];
  let how: string;
  if (stressNg) {
    how = `nice -n 19 stress-ng --cpu ${cpus} --timeout ${LOAD_LIMIT_S}s`;
    children.push(
      spawn('nice', ['-n', '19', stressNg, '--cpu', String(cpus), '--timeout', `${LOAD_LIMIT_S}s`, '--quiet'], {
        stdio: 'ignore',
        detached: true,
      }),
    );
  } else {
    // No stress-ng (scripts/setup.sh installs it): busy loops that give up at the same deadline.
    how = `${cpus} busy node processes at nice 19 (stress-ng not found)`;
    const spin = `const end = Date.now() + ${LOAD_LIMIT_S * 1000}; while (Date.now() < end) {}`;
    for (let i = 0; i < cpus; i++)
      children.push(spawn('nice', ['-n', '19', process.execPath, '-e', spin], { stdio: 'ignore', detached: true }));
  }
  const stop = (): void => {
    for (const c of children) {
      if (c.pid === undefined || c.exitCode !== null || c.signalCode !== null) continue;
      try {
        process.kill(-c.pid, 'SIGKILL'); // the group: stress-ng's workers too
      } catch {
        // already gone
      }
    }
  };
  return { how, stop };
}

/** Per-file times written by scripts/file-times-reporter.ts, slowest first. */
function fileTimes(jsonFile: string): FileTime[] {
  return JSON.parse(readFileSync(jsonFile, 'utf8')) as FileTime[];
}

function runVitest(files: string[], timesFile: string): Promise<number> {
  const reporter = path.join(REPO, 'scripts', 'file-times-reporter.ts');
  const args = ['vitest', 'run', '--reporter=default', `--reporter=${reporter}`, ...files];
  const child = spawn('npx', args, {
    cwd: REPO,
    stdio: 'inherit',
    env: { ...process.env, POOLTEST_FILE_TIMES: timesFile },
  });
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: {
      ci: { type: 'boolean', default: false },
      cpu: { type: 'string', default: '2' },
      runs: { type: 'string', default: '1' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
  });
  if (values.help) {
    console.log('usage: load-test [--ci] [--cpu N] [--runs N] [-- test files]');
    return 0;
  }
  const cpus = Number(values.cpu);
  const runs = Number(values.runs);
  if (!Number.isInteger(cpus) || cpus < 0 || cpus > 16 || !Number.isInteger(runs) || runs < 1 || runs > 10) {
    console.error('load-test: --cpu takes 0 to 16, --runs 1 to 10');
    return 2;
  }
  const files = positionals.length > 0 ? positionals : values.ci ? [...TIMING_DEPENDENT] : [];
  const load = startLoad(cpus);
  const stopAndExit = (signal: NodeJS.Signals): void => {
    load.stop();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', stopAndExit);
  process.once('SIGTERM', stopAndExit);
  process.once('exit', () => load.stop());
  const dir = mkdtempSync(path.join(tmpdir(), 'pooltest-load-'));
  const summaries: string[] = [];
  let last: FileTime[] = [];
  let exitCode = 0;
  try {
    console.log(`load-test: ${files.length > 0 ? `${files.length} files` : 'the whole suite'}, ${load.how}`);
    for (let i = 1; i <= runs; i++) {
      const jsonFile = path.join(dir, `times-${i}.json`);
      const t0 = performance.now();
      const code = await runVitest(files, jsonFile);
      const s = Math.round((performance.now() - t0) / 1000);
      const summary = `run ${i} of ${runs}: exit ${code}, ${s} s wall (${load.how})`;
      summaries.push(summary);
      console.log(`\nload-test: ${summary}`);
      try {
        last = fileTimes(jsonFile);
        console.log(`every file's time, slowest first (${last.length} files):`);
        for (const f of last) console.log(fileLine(f));
        console.log('time per project (the sum of its files; `fixtures` runs two at once, `timing` one):');
        for (const [project, ms] of projectTotals(last))
          console.log(`  ${(ms / 1000).toFixed(0).padStart(6)} s  ${project}`);
      } catch {
        last = [];
        console.log('  (no file times written)');
      }
      if (code !== 0) {
        exitCode = code;
        break;
      }
    }
  } finally {
    load.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  // At the very end, so it is what a reader of the output's tail sees first.
  console.log(`\nload-test: ${summaries.join('; ')}`);
  console.log(`slowest 10 files${runs > 1 ? ' of the last run' : ''}:`);
  if (last.length === 0) console.log('  (no file times written)');
  for (const f of last.slice(0, 10)) console.log(fileLine(f));
  return exitCode;
}

function fileLine(f: FileTime): string {
  return `  ${(f.ms / 1000).toFixed(1).padStart(6)} s  ${f.file} [${f.project}]${f.failed ? '  (failed)' : ''}`;
}

/** Each project's summed file time, largest first. */
function projectTotals(times: FileTime[]): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const t of times) totals.set(t.project, (totals.get(t.project) ?? 0) + t.ms);
  return [...totals].sort((a, b) => b[1] - a[1]);
}

process.exitCode = await main();
