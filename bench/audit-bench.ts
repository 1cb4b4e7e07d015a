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
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { audit } from '../audit/audit.js';

/** Driver statements: the same text every time, values travel as parameters. */
const REPEATED = [
  'SELECT id, email, name FROM users WHERE id = $1',
  'SELECT * FROM orders WHERE user_id = $1 AND status = $2 ORDER BY created_at DESC LIMIT $3',
  'INSERT INTO events (kind, payload, created_at) VALUES ($1, $2, now()) RETURNING id',
  'UPDATE sessions SET last_seen = now() WHERE token = $1',
  'DELETE FROM carts WHERE expires_at < now() - $1::interval',
  'SELECT count(*) FROM invoices i JOIN customers c ON c.id = i.customer_id WHERE c.region = $1 AND i.paid = false',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  "SET statement_timeout = '30s'",
  'SELECT pg_advisory_lock($1)',
  'SELECT pg_advisory_unlock($1)',
  "SELECT set_config('app.tenant_id', $1, false)",
  "SET LOCAL lock_timeout = '2s'",
  'LISTEN cache_invalidation',
  'SELECT pg_try_advisory_xact_lock($1)',
  'SELECT lastval()',
  "SELECT 'SET search_path = x' AS not_a_finding",
];

/** A multi-line statement: continuation lines start with a tab in the stderr format. */
const MULTI_LINE =
  'WITH recent AS (\n  SELECT user_id, max(created_at) AS at\n  FROM logins GROUP BY user_id\n)\nSELECT u.id, r.at FROM users u JOIN recent r ON r.user_id = u.id WHERE u.id = $1';

/** ORM-style text with the values inlined: every one is a new text for the cache. */
function inlined(i: number): string {
  switch (i % 3) {
    case 0:
      return `SELECT "products"."id", "products"."name", "products"."price" FROM "products" WHERE "products"."category_id" = ${i} AND "products"."active" = true LIMIT 20`;
    case 1:
      return `UPDATE "accounts" SET "balance" = "balance" - ${i % 997}, "updated_at" = '2026-01-01 10:00:${String(i % 60).padStart(2, '0')}' WHERE "accounts"."id" = ${i}`;
    default:
      return `INSERT INTO "audit_log" ("actor", "action", "at") VALUES ('user-${i}', 'login', now())`;
  }
}

const PREFIX = (i: number): string =>
  `2026-01-01 10:${String(Math.floor(i / 60000) % 60).padStart(2, '0')}:${String(Math.floor(i / 1000) % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')} UTC [${10000 + (i % 50)}] app@appdb `;

/** Writes a log of `statements` statements, `uniquePercent` of them texts seen only once. */
async function generateLog(path: string, statements: number, uniquePercent: number): Promise<void> {
  const out = createWriteStream(path);
  let buffer = '';
  for (let i = 0; i < statements; i++) {
    const p = PREFIX(i);
    if (i % 100 < uniquePercent) buffer += `${p}LOG:  statement: ${inlined(i)}\n`;
    else if (i % 25 === 3) buffer += `${p}LOG:  statement: ${MULTI_LINE.replace(/\n/g, '\n\t')}\n`;
    else {
      const text = REPEATED[i % REPEATED.length]!;
      if (text.includes('$1')) buffer += `${p}LOG:  execute <unnamed>: ${text}\n${p}DETAIL:  parameters: $1 = '${i}'\n`;
      else buffer += `${p}LOG:  statement: ${text}\n`;
    }
    if (i % 5000 === 0) buffer += `${p}LOG:  connection received: host=10.0.0.${i % 250} port=${40000 + (i % 2000)}\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await new Promise<void>((r) => out.once('drain', () => r()));
      buffer = '';
    }
  }
  out.end(buffer);
  await new Promise<void>((r) => out.once('finish', () => r()));
}

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
