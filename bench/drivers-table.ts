/**
 * docs/drivers.json (the stored runs), and from it docs/drivers.md and the drivers section of
 * docs/compatibility.md and .html: `pooltest drivers` against each fixture stack of
 * {@link DRIVER_STACKS} (or those named), with the fixture's PostgreSQL as --direct and its log
 * read for retries the drivers keep to themselves. Columns not named are kept from the stored
 * file. With `--record DIR` each run's whole report is also written there
 * (test/recorded/drivers-<stack>.json feeds the judges' tests).
 *
 *   npm run docs:drivers [-- [--record DIR] [STACK...]]
 *   npm run docs:drivers -- --render      (no runs: the pages again from docs/drivers.json)
 *   npm run docs:drivers -- --reuse DIR   (a stack whose DIR/drivers-<stack>.json exists, as
 *                                          --record wrote it, is taken from there, not run again:
 *                                          a regeneration cut short goes on where it stopped)
 *
 * test/reporters/drivers-table.test.ts fails when the pages differ from the stored runs.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDrivers } from '../drivers/run-drivers.js';
import { resolveTarget } from '../engine/target/target.js';
import { startStack } from '../fixtures/stack.js';
import { columnOf, renderDriversDoc, type StoredDriverRuns } from '../reporters/drivers-table.js';
import { DRIVER_STACKS, DRIVERS_FILES, REPO, storedDriverRuns } from './drivers-runs.js';
import type { Matrix } from '../reporters/matrix.js';
import { COMPAT_FILES } from './compatibility-targets.js';
import { writeCompatibility } from './compatibility.js';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const recordAt = args.indexOf('--record');
  const recordDir = recordAt >= 0 ? args.splice(recordAt, 2)[1] : undefined;
  const reuseAt = args.indexOf('--reuse');
  const reuseDir = reuseAt >= 0 ? args.splice(reuseAt, 2)[1] : undefined;
  const renderAt = args.indexOf('--render');
  const renderOnly = renderAt >= 0 && args.splice(renderAt, 1).length === 1;
  const unknown = args.filter((a) => !DRIVER_STACKS.some((s) => s.stack === a && s.pending === undefined));
  if (unknown.length > 0)
    throw new Error(
      `unknown or pending stack(s) ${unknown.join(', ')}; known: ${DRIVER_STACKS.filter((s) => !s.pending)
        .map((s) => s.stack)
        .join(', ')}`,
    );
  const stored = storedDriverRuns();
  if (renderOnly) {
    writePages(stored);
    return;
  }
  const columns: StoredDriverRuns['columns'] = [];
  for (const { stack: name, title, pending } of DRIVER_STACKS) {
    if (pending) continue;
    const kept = stored.columns.find((c) => c.stack === name);
    if (args.length > 0 && !args.includes(name) && kept) {
      columns.push(kept);
      continue;
    }
    const reused = reuseDir ? path.join(reuseDir, `drivers-${name}.json`) : null;
    if (reused && existsSync(reused)) {
      const report = JSON.parse(readFileSync(reused, 'utf8')) as Parameters<typeof columnOf>[1];
      columns.push(columnOf(name, report, title));
      if (recordDir && path.resolve(recordDir) !== path.resolve(reuseDir!))
        writeFileSync(path.join(recordDir, `drivers-${name}.json`), `${JSON.stringify(report)}\n`);
      process.stderr.write(`${name}: ${report.results.length} results, from ${reused}\n`);
      continue;
    }
    const stack = await startStack(name);
    try {
      const report = await runDrivers(resolveTarget({ target: stack.target.url() }), {
        direct: resolveTarget({ target: stack.postgres.url() }),
        serverLog: stack.postgres.logFile,
      });
      columns.push({ ...columnOf(name, report, title), loadAverage: Math.round(os.loadavg()[0]! * 10) / 10 });
      process.stderr.write(`${name}: ${report.results.length} results in ${(report.durationMs / 1000).toFixed(1)} s\n`);
      if (recordDir) writeFileSync(path.join(recordDir, `drivers-${name}.json`), `${JSON.stringify(report)}\n`);
    } finally {
      await stack.stop();
    }
  }
  const runs: StoredDriverRuns = {
    columns,
    pending: DRIVER_STACKS.flatMap((s) => (s.pending ? [{ stack: s.stack, reason: s.pending }] : [])),
  };
  writeFileSync(path.join(REPO, DRIVERS_FILES.json), `${JSON.stringify(runs, null, 2)}\n`);
  writePages(runs);
}

/** docs/drivers.md, and the compatibility pages re-rendered from their committed matrix (they carry the same table). */
function writePages(runs: StoredDriverRuns): void {
  writeFileSync(path.join(REPO, DRIVERS_FILES.markdown), renderDriversDoc(runs));
  writeCompatibility(JSON.parse(readFileSync(path.join(REPO, COMPAT_FILES.json), 'utf8')) as Matrix);
  process.stderr.write(
    `wrote ${DRIVERS_FILES.json}, ${DRIVERS_FILES.markdown}, ${COMPAT_FILES.markdown}, ${COMPAT_FILES.html}\n`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
}
