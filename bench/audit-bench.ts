/**
 * Benchmark of `pooltest audit --log`: generates PostgreSQL stderr logs of 200,000 and
 * 1,000,000 statements with a realistic mix (driver statements with `$n` placeholders repeated
 * many times, ORM-style queries with inlined literals that never repeat, multi-line statements,
 * DETAIL and connection lines, and some statements that rely on session state), then audits
 * each in a fresh child process and prints statements per second (by the clock for the audit
 * call and for the whole process, which is what a user waits for and what the target of
 * 1,000,000 statements/s is judged on, for logs of a million statements or more; and per CPU
 * second: on a shared machine the clock says more about the neighbours), and
 * peak RSS. `--sizes 1000000,2000000` shows memory staying flat past the default sizes. Equal
 * peaks for both sizes show memory does not grow with the log. When pgBadger is installed
 * (Debian `pgbadger`), it analyses the largest log too (`-j 1`, output to a temporary folder,
 * at most 10 minutes) and its time is printed beside the audit's.
 *
 *   npm run build && node dist/bench/audit-bench.js [--sizes 200000,1000000] [--unique 10]
 *     [--jobs N] [--no-pgbadger] [--keep]
 *
 * `--unique` is the percentage of statements whose text appears only once (default 10): the
 * cache cannot help with those, so it sets how much parsing the run does. `--jobs` is the
 * audit's own option (threads per log; by default one per core for a log of 64 MB or more).
 * The load average is printed too: on a shared machine it says how far the clock can be trusted.
 * A log read by more than one thread is audited again on one thread, and the bench says whether
 * the reports are identical (apart from generatedAt, durationMs, parsedTexts); it exits 1 if not,
 * and 1 if a judged log misses the target (with no log of a million statements, nothing is judged).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { audit } from '../audit/audit.js';
import { workersFor } from '../audit/log-parallel.js';
import { generateLog } from './audit-log-mix.js';

/** The statements/s target applies to logs of this many statements and more (see main). */
const JUDGED_FROM = 1_000_000;

interface ChildResult {
  /** Threads that read the log (the audit's default unless --jobs is given). */
  jobs: number;
  statements: number;
  parsedTexts: number;
  findings: number;
  unparsed: number;
  seconds: number;
  cpuSeconds: number;
  perSecond: number;
  perCpuSecond: number;
  maxRssMb: number;
  /** SHA-256 of the report without what may differ between runs and thread counts. */
  reportHash: string;
}

/** Runs in the child: one audit, one measurement, printed as JSON. */
async function child(file: string, jobs: number | undefined): Promise<void> {
  const started = performance.now();
  const report = await audit({ logs: [file], ...(jobs !== undefined ? { jobs } : {}) });
  const threads = workersFor(jobs, (await stat(file)).size);
  const seconds = (performance.now() - started) / 1000;
  // resourceUsage() covers every thread of the process: the workers' CPU time counts too.
  const usage = process.resourceUsage();
  const cpuSeconds = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
  const result: ChildResult = {
    jobs: threads,
    statements: report.summary.statements,
    parsedTexts: report.summary.parsedTexts,
    findings: report.summary.findings,
    unparsed: report.summary.unparsed,
    seconds,
    cpuSeconds,
    perSecond: Math.round(report.summary.statements / seconds),
    perCpuSecond: Math.round(report.summary.statements / cpuSeconds),
    // maxRSS is the process's peak resident set in KiB.
    maxRssMb: Math.round(usage.maxRSS / 1024),
    reportHash: reportHash(report),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * The report as it must come out whatever the build and the thread count: without the time it
 * was made and took, and without `parsedTexts` (each thread has a text cache of its own).
 */
function reportHash(report: Awaited<ReturnType<typeof audit>>): string {
  const { generatedAt: _at, ...rest } = report;
  const { durationMs: _ms, parsedTexts: _texts, ...summary } = rest.summary;
  return createHash('sha256')
    .update(JSON.stringify({ ...rest, summary }))
    .digest('hex');
}

const PGBADGER = '/usr/bin/pgbadger';
/** The bench log's log_line_prefix (audit-log-mix.ts), as pgBadger must be told it. */
const PGBADGER_PREFIX = '%m [%p] %u@%d ';
const PGBADGER_LIMIT_MS = 10 * 60 * 1000;

/**
 * pgBadger's time on `file` (one job, HTML into `outDir`), or why there is none. pgBadger forks
 * a parser process even with `-j 1`, so it runs in a process group of its own and the bound
 * kills the whole group: nothing of it outlives the bench.
 */
async function runPgbadger(file: string, outDir: string): Promise<{ seconds: number } | { skipped: string }> {
  if (!existsSync(PGBADGER)) return { skipped: `${PGBADGER} is not installed (apt-get install pgbadger)` };
  const started = performance.now();
  const args = [
    '-j',
    '1',
    '-f',
    'stderr',
    '--prefix',
    PGBADGER_PREFIX,
    '-q',
    '-o',
    join(outDir, 'pgbadger.html'),
    file,
  ];
  const child = spawn(PGBADGER, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-300)));
  let timedOut = false;
  const bound = setTimeout(() => {
    timedOut = true;
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, PGBADGER_LIMIT_MS);
  const code = await new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(null));
    child.on('close', (c) => resolve(c));
  });
  clearTimeout(bound);
  const seconds = (performance.now() - started) / 1000;
  if (timedOut) return { skipped: `pgBadger did not finish within ${PGBADGER_LIMIT_MS / 60_000} minutes (stopped)` };
  if (code !== 0) return { skipped: `pgBadger failed (exit ${String(code)}): ${stderr.trim()}` };
  return { seconds };
}

function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--child') {
    await child(argv[1]!, argv[2] === undefined ? undefined : Number(argv[2]));
    return 0;
  }
  const sizes = (option(argv, '--sizes') ?? '200000,1000000').split(',').map(Number);
  const keep = argv.includes('--keep');
  const uniquePercent = Number(option(argv, '--unique') ?? 10);
  const jobs = option(argv, '--jobs');
  const dir = await mkdtemp(join(tmpdir(), 'pooltest-audit-bench-'));
  try {
    const rows: Array<
      ChildResult & { size: number; fileMb: number; processSeconds: number; sameAsOne: boolean | null }
    > = [];
    let largest = '';
    for (const size of sizes) {
      const file = join(dir, `postgresql-${size}.log`);
      await generateLog(file, size, uniquePercent);
      largest = file;
      const fileMb = Math.round((await stat(file)).size / 1024 / 1024);
      // A fresh process per size: its peak RSS belongs to that size alone.
      const args = [fileURLToPath(import.meta.url), '--child', file, ...(jobs !== undefined ? [jobs] : [])];
      const spawned = performance.now();
      const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
      // What a user waits for: the whole process, Node's start and the imports included.
      const processSeconds = (performance.now() - spawned) / 1000;
      if (run.status !== 0) throw new Error(`audit child failed: ${run.stderr}`);
      const result = JSON.parse(run.stdout) as ChildResult;
      // Several threads must give the report one thread gives: audited again on one thread
      // (after the measured run, so its figures are its own) and compared.
      let sameAsOne: boolean | null = null;
      if (result.jobs > 1) {
        const one = spawnSync(process.execPath, [args[0]!, '--child', file, '1'], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        });
        if (one.status !== 0) throw new Error(`audit child (one thread) failed: ${one.stderr}`);
        sameAsOne = (JSON.parse(one.stdout) as ChildResult).reportHash === result.reportHash;
      }
      rows.push({ size, fileMb, processSeconds, sameAsOne, ...result });
    }
    const out = (line: string): boolean => process.stdout.write(`${line}\n`);
    out(
      `${uniquePercent}% of statements are unique texts; jobs: ${jobs ?? 'default (one thread per core from 64 MB)'}`,
    );
    out(
      'statements  log MB  jobs  parsed texts  findings  seconds  statements/s  process s  statements/s  CPU s  statements/CPU s  peak RSS MB',
    );
    for (const r of rows) {
      const perProcessSecond = Math.round(r.statements / r.processSeconds);
      out(
        `${String(r.statements).padStart(10)}  ${String(r.fileMb).padStart(6)}  ${String(r.jobs).padStart(4)}  ${String(r.parsedTexts).padStart(12)}  ${String(r.findings).padStart(8)}  ${r.seconds.toFixed(2).padStart(7)}  ${String(r.perSecond).padStart(12)}  ${r.processSeconds.toFixed(2).padStart(9)}  ${String(perProcessSecond).padStart(12)}  ${r.cpuSeconds.toFixed(2).padStart(5)}  ${String(r.perCpuSecond).padStart(16)}  ${String(r.maxRssMb).padStart(11)}`,
      );
    }
    out(
      'seconds: the audit() call; process s: the whole `node` process as a user waits for it (start and imports too); CPU s: all threads of the process',
    );
    for (const r of rows)
      if (r.sameAsOne !== null)
        out(
          `${r.statements} statements: the ${r.jobs}-thread report is ${r.sameAsOne ? 'identical to' : 'NOT the same as'} one thread's (apart from generatedAt, durationMs, parsedTexts)`,
        );
    const mismatch = rows.some((r) => r.sameAsOne === false);
    // On a shared machine the clock figures say as much about the neighbours as about the audit.
    const [one, five] = loadavg();
    out(
      `load average during the runs: ${one!.toFixed(2)} (1 min), ${five!.toFixed(2)} (5 min) on ${availableParallelism()} cores`,
    );
    // Judged on the whole process, which is what a user waits for, for the logs the target is
    // about (issue 23: the 1M-statement log, and larger): on a smaller log Node's start and the
    // imports (about 0.15 s) are a large part of the whole, which says nothing about the audit's speed.
    const target = 1_000_000;
    const judged = rows.filter((r) => r.statements >= JUDGED_FROM);
    const slowest = judged.length > 0 ? Math.min(...judged.map((r) => Math.round(r.statements / r.processSeconds))) : 0;
    const busy =
      one! > availableParallelism()
        ? `; the load exceeds the ${availableParallelism()} cores, so the clock figures are the neighbours' as much as the audit's: CPU s is the steadier figure`
        : '';
    out(
      judged.length === 0
        ? `target >= ${target} statements/s (whole process): not judged, no log of ${JUDGED_FROM} statements or more (--sizes)`
        : `target >= ${target} statements/s (whole process, logs of ${JUDGED_FROM} statements or more): ${slowest >= target ? 'met' : 'NOT met'} (slowest ${slowest}/s)${busy}`,
    );
    if (rows.length >= 2) {
      const first = rows[0]!;
      const last = rows[rows.length - 1]!;
      out(
        `peak RSS: ${first.maxRssMb} MB for ${first.statements} statements, ${last.maxRssMb} MB for ${last.statements} (x${(last.statements / first.statements).toFixed(1)} the log, x${(last.maxRssMb / first.maxRssMb).toFixed(2)} the memory${first.jobs === last.jobs ? '' : `; ${first.jobs} vs ${last.jobs} threads, each with its own heap: --jobs 1 compares like with like`})`,
      );
    }
    if (!argv.includes('--no-pgbadger')) {
      const badger = await runPgbadger(largest, dir);
      const ours = rows[rows.length - 1]!;
      if ('skipped' in badger) out(`pgBadger: not run: ${badger.skipped}`);
      else
        out(
          `pgBadger 1 job on the ${ours.statements}-statement log: ${badger.seconds.toFixed(2)} s; pooltest audit, whole process: ${ours.processSeconds.toFixed(2)} s (x${(badger.seconds / ours.processSeconds).toFixed(1)} faster)`,
        );
    }
    if (keep) out(`logs kept in ${dir}`);
    // Nothing judged (only small logs asked for, e.g. a quick memory check) is no failure.
    return (judged.length === 0 || slowest >= target) && !mismatch ? 0 : 1;
  } finally {
    if (!keep) await rm(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);
