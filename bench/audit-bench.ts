/**
 * Benchmark of `pooltest audit --log`: generates PostgreSQL stderr logs of 200,000 and
 * 1,000,000 statements with a realistic mix (driver statements with `$n` placeholders repeated
 * many times, ORM-style queries with inlined literals that never repeat, multi-line statements,
 * DETAIL and connection lines, and some statements that rely on session state), then audits
 * each in a fresh child process and prints statements per second and peak RSS. Equal peaks for
 * both sizes show memory does not grow with the log.
 *
 *   npm run build && node dist/bench/audit-bench.js [--sizes 200000,1000000] [--unique 10] [--keep]
 *
 * `--unique` is the percentage of statements whose text appears only once (default 10): the
 * cache cannot help with those, so it sets how much parsing the run does.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { audit } from '../audit/audit.js';
import { generateLog } from './audit-log-mix.js';

interface ChildResult {
  statements: number;
  parsedTexts: number;
  findings: number;
  unparsed: number;
  seconds: number;
  perSecond: number;
  maxRssMb: number;
}

/** Runs in the child: one audit, one measurement, printed as JSON. */
async function child(file: string): Promise<void> {
  const started = performance.now();
  const report = await audit({ logs: [file] });
  const seconds = (performance.now() - started) / 1000;
  const result: ChildResult = {
    statements: report.summary.statements,
    parsedTexts: report.summary.parsedTexts,
    findings: report.summary.findings,
    unparsed: report.summary.unparsed,
    seconds,
    perSecond: Math.round(report.summary.statements / seconds),
    // resourceUsage().maxRSS is the process's peak resident set in KiB.
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--child') {
    await child(argv[1]!);
    return 0;
  }
  const sizesArg = argv.indexOf('--sizes');
  const sizes = sizesArg >= 0 ? argv[sizesArg + 1]!.split(',').map(Number) : [200_000, 1_000_000];
  const keep = argv.includes('--keep');
  const uniqueArg = argv.indexOf('--unique');
  const uniquePercent = uniqueArg >= 0 ? Number(argv[uniqueArg + 1]) : 10;
  const dir = await mkdtemp(join(tmpdir(), 'pooltest-audit-bench-'));
  try {
    const rows: Array<ChildResult & { size: number; fileMb: number }> = [];
    for (const size of sizes) {
      const file = join(dir, `postgresql-${size}.log`);
      await generateLog(file, size, uniquePercent);
      const fileMb = Math.round((await stat(file)).size / 1024 / 1024);
      // A fresh process per size: its peak RSS belongs to that size alone.
      const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', file], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      });
      if (run.status !== 0) throw new Error(`audit child failed: ${run.stderr}`);
      rows.push({ size, fileMb, ...(JSON.parse(run.stdout) as ChildResult) });
    }
    process.stdout.write(`${uniquePercent}% of statements are unique texts\n`);
    process.stdout.write('statements  log MB  parsed texts  findings  seconds  statements/s  peak RSS MB\n');
    for (const r of rows) {
      process.stdout.write(
        `${String(r.statements).padStart(10)}  ${String(r.fileMb).padStart(6)}  ${String(r.parsedTexts).padStart(12)}  ${String(r.findings).padStart(8)}  ${r.seconds.toFixed(2).padStart(7)}  ${String(r.perSecond).padStart(12)}  ${String(r.maxRssMb).padStart(11)}\n`,
      );
    }
    const slowest = Math.min(...rows.map((r) => r.perSecond));
    const target = 50_000;
    process.stdout.write(
      `target >= ${target} statements/s: ${slowest >= target ? 'met' : 'NOT met'} (slowest ${slowest}/s)\n`,
    );
    if (rows.length >= 2) {
      const first = rows[0]!;
      const last = rows[rows.length - 1]!;
      process.stdout.write(
        `peak RSS: ${first.maxRssMb} MB for ${first.statements} statements, ${last.maxRssMb} MB for ${last.statements} (x${(last.statements / first.statements).toFixed(1)} the log, x${(last.maxRssMb / first.maxRssMb).toFixed(2)} the memory)\n`,
      );
    }
    if (keep) process.stdout.write(`logs kept in ${dir}\n`);
    return slowest >= target ? 0 : 1;
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
