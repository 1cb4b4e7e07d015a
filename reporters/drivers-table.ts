/**
 * The drivers x poolers table, from stored runs (docs/drivers.json, written by
 * `npm run docs:drivers`, bench/drivers-table.ts): as docs/drivers.md, and as the drivers
 * section of docs/compatibility.md and .html. Pure renderings, so a test holds the committed
 * pages to the stored results without running anything.
 */
import type { DriverResult, DriversReport } from '../drivers/run-drivers.js';
import { DRIVER_OUTCOMES, DRIVER_SCENARIOS } from '../drivers/judge.js';
import { esc } from './html.js';
import { cellText } from './drivers-text.js';

/** One stored result: what the tables need of a {@link DriverResult}. */
export type StoredDriverResult = Pick<
  DriverResult,
  'id' | 'driver' | 'driverVersion' | 'config' | 'advised' | 'scenario' | 'outcome' | 'verdict' | 'expected' | 'reason'
>;

/** One column: a fixture stack's drivers run. */
export interface DriversColumn {
  /** The fixture stack (fixtures/stack.ts). */
  stack: string;
  /** The pooler, version and mode discovery found (or PostgreSQL, direct). */
  pooler: string;
  startedAt: string;
  durationMs: number;
  /** The 1-minute load average when the run ended (a shared machine's other work lengthens runs). */
  loadAverage?: number;
  results: StoredDriverResult[];
  skipped: DriversReport['skipped'];
}

/** docs/drivers.json. */
export interface StoredDriverRuns {
  columns: DriversColumn[];
  /** Columns not run, each with the reason (a pooler pooltest cannot drive yet). */
  pending: Array<{ stack: string; reason: string }>;
}

/**
 * A run as a column (the steps are left out: the tables need outcomes, reasons and times). The
 * header names the pooler discovery identified, else `known` (what the fixture started: Odyssey
 * does not say who it is), else the mode.
 */
export function columnOf(stack: string, report: DriversReport, known?: string): DriversColumn {
  const d = report.discovery;
  const pooler = d.pooler
    ? `${d.pooler.name} ${d.pooler.version ?? ''} ${d.mode}`.replace(/\s+/g, ' ').trim()
    : d.mode === 'direct'
      ? `PostgreSQL ${d.serverVersion.split(' ')[0] ?? ''}`
      : (known ?? `${d.mode} pooling, pooler not identified`);
  return {
    stack,
    pooler,
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    results: report.results.map((r) => ({
      id: r.id,
      driver: r.driver,
      driverVersion: r.driverVersion,
      config: r.config,
      advised: r.advised,
      scenario: r.scenario,
      outcome: r.outcome,
      verdict: r.verdict,
      expected: r.expected,
      reason: r.reason,
    })),
    skipped: report.skipped,
  };
}

interface Row {
  driver: string;
  version: string;
  config: string;
  advised: boolean;
  scenario: string;
  cells: string[];
}

/** Driver x configuration x scenario rows, one cell per column, in the drivers' catalogue order. */
function rowsOf(runs: StoredDriverRuns): Row[] {
  const keys: StoredDriverResult[] = [];
  for (const c of runs.columns)
    for (const r of c.results) if (!keys.some((k) => k.driver === r.driver && k.config === r.config)) keys.push(r);
  const rows: Row[] = [];
  for (const k of keys)
    for (const scenario of DRIVER_SCENARIOS) {
      const cells = runs.columns.map((c) =>
        cellText(
          c.results.find((r) => r.driver === k.driver && r.config === k.config && r.scenario === scenario) as
            DriverResult | undefined,
        ),
      );
      if (cells.every((x) => x === '-')) continue;
      const version = runs.columns.flatMap((c) => c.results).find((r) => r.driver === k.driver)?.driverVersion;
      rows.push({ driver: k.driver, version: version ?? '', config: k.config, advised: k.advised, scenario, cells });
    }
  return rows;
}

const LEGEND = [
  "- **moved**: the driver's statement was prepared on one backend; its next use runs on another.",
  '- **collision**: another process of the same driver lands on that backend and runs the same query.',
  '- **cursor**: a server-side cursor with a fetch size, read again on another backend.',
  "- **batch**: the driver's own batch or pipeline call (pgjdbc `executeBatch`, asyncpg `executemany`, psycopg",
  '  `pipeline()`, psycopg2 `execute_batch`, postgres.js pipelined queries, ruby-pg pipeline mode, pgx `SendBatch`),',
  '  8 batches of 8 statements, every other one in a transaction, while other clients compete for the pool; each',
  '  statement records the backend and transaction it ran in.',
  "- **migration** (frameworks): the framework's own migration run, its advisory lock's release kept off the backend that took it.",
  '',
  'Frameworks (ActiveRecord, Django, SQLAlchemy) run their own code path: their model queries, iterators and migrators.',
  '',
  "`works`; `retried` (it worked only because the driver retried after a server error, seen in the driver's own",
  "log or in the server's log on that backend); `failed` (the application got the server error); `stalled` (a",
  "batch got no answer within the step bound and its agent was killed); `split` (one transaction's batch ran on",
  'more than one backend or transaction); `inconclusive` (no label the record proves: the reasons are in',
  'docs/drivers.json); `-` (the driver has no such API: no cursor for ruby-pg and node-postgres, no batch call for',
  'node-postgres and PDO; no migration outside the frameworks; or a configuration that changes only the batch).',
];

const md = (t: string): string => t.replace(/\|/g, '\\|');

/** The table in Markdown. */
export function driversTableMarkdown(runs: StoredDriverRuns): string[] {
  return [
    `| driver | configuration | scenario | ${runs.columns.map((c) => `${c.stack} (${md(c.pooler)})`).join(' | ')} |`,
    `|---|---|---|${runs.columns.map(() => '---|').join('')}`,
    ...rowsOf(runs).map(
      (r) =>
        `| ${r.driver} ${r.version} | \`${md(r.config)}\`${r.advised ? ' (advised)' : ''} | ${r.scenario} | ${r.cells.join(' | ')} |`,
    ),
  ];
}

/** The notes under a table: inconclusive cells with their reasons, skipped drivers, pending columns. */
function notes(runs: StoredDriverRuns): string[] {
  const out: string[] = [];
  for (const c of runs.columns)
    for (const r of c.results)
      if (r.outcome === null) out.push(`- ${c.stack}, \`${md(r.id)}\` inconclusive: ${md(r.reason)}`);
  for (const c of runs.columns)
    for (const s of c.skipped) out.push(`- ${c.stack}: ${s.driver} skipped: ${md(s.reason)}`);
  for (const p of runs.pending) out.push(`- ${p.stack}: not run yet: ${md(p.reason)}`);
  return out;
}

/** docs/drivers.md. */
export function renderDriversDoc(runs: StoredDriverRuns): string {
  const lines = [
    '# Drivers through poolers',
    '',
    '<!-- Generated by `npm run docs:drivers` (bench/drivers-table.ts) from the stored runs in docs/drivers.json',
    '     (real runs of `pooltest drivers` against the fixture stacks); do not edit by hand. -->',
    '',
    'Each driver runs in its default configuration and in the one its documentation (or',
    "PgBouncer's) advises for transaction pooling, steered by pooltest's holders (pool of 2):",
    '',
    ...LEGEND,
    '',
    ...driversTableMarkdown(runs),
  ];
  const n = notes(runs);
  if (n.length > 0) lines.push('', ...n);
  lines.push(
    '',
    'Run times of the stored runs (whole `pooltest drivers` run, discovery included, on a shared 2-core machine,',
    'whose other work lengthens them; the load average is shown where it was recorded):',
    '',
  );
  for (const c of runs.columns)
    lines.push(
      `- ${c.stack}: ${(c.durationMs / 1000).toFixed(0)} s${c.loadAverage !== undefined ? ` (load average ${c.loadAverage.toFixed(1)})` : ''}`,
    );
  return `${lines.join('\n')}\n`;
}

/** The drivers section of docs/compatibility.md. */
export function driversSectionMarkdown(runs: StoredDriverRuns): string {
  const n = notes(runs);
  return [
    '## Drivers through the poolers',
    '',
    'Real drivers (their defaults, and the configuration their documentation advises for transaction pooling)',
    'through the same fixtures, from `pooltest drivers` runs stored in [drivers.json](drivers.json); what each scenario',
    'does and the run times: [drivers.md](drivers.md).',
    '',
    ...driversTableMarkdown(runs),
    ...(n.length > 0 ? ['', ...n] : []),
    '',
  ].join('\n');
}

/** Whether a cell's outcome (its first word: `failed (expected works)` is a failed) breaks an application. */
function cellBreaks(cell: string): boolean {
  return DRIVER_OUTCOMES[cell.split(' ')[0]!]?.breaks === true;
}

/** The same section as HTML, for docs/compatibility.html. */
export function driversSectionHtml(runs: StoredDriverRuns): string {
  const head = ['driver', 'configuration', 'scenario', ...runs.columns.map((c) => `${c.stack} (${c.pooler})`)]
    .map((h) => `<th>${esc(h)}</th>`)
    .join('');
  const rows = rowsOf(runs)
    .map((r) => {
      const cells = r.cells.map((c) => `<td><code class="${cellBreaks(c) ? 'breaks' : ''}">${esc(c)}</code></td>`);
      return `<tr><td>${esc(`${r.driver} ${r.version}`)}</td><td><code>${esc(r.config)}</code>${r.advised ? ' (advised)' : ''}</td><td>${esc(r.scenario)}</td>${cells.join('')}</tr>`;
    })
    .join('');
  const items = notes(runs)
    .map((n) => `<li>${esc(n.replace(/^- /, '').replace(/\\\|/g, '|'))}</li>`)
    .join('');
  return `<section id="drivers"><h2>Drivers through the poolers</h2><p>Real drivers through the same fixtures, from stored <code>pooltest drivers</code> runs (docs/drivers.json; details in drivers.md).</p><div class="wrap"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>${items ? `<ul>${items}</ul>` : ''}</section>`;
}
