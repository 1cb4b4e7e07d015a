/**
 * The drivers report for people: a terminal table and Markdown, one row per driver
 * configuration and one column per scenario, then the reasons and advice of what needs action.
 */
import type { DriverResult, DriversReport } from '../drivers/run-drivers.js';
import { DRIVER_SCENARIOS, type DriverScenarioId } from '../drivers/judge.js';
import { poolText } from './report-text.js';
import { driversSummaryLine } from './drivers-summary.js';

interface Row {
  driver: string;
  config: string;
  advised: boolean;
  cells: Record<string, DriverResult | undefined>;
}

function rowsOf(report: DriversReport): Row[] {
  const rows: Row[] = [];
  for (const r of report.results) {
    let row = rows.find((x) => x.driver === r.driver && x.config === r.config);
    if (!row) rows.push((row = { driver: r.driver, config: r.config, advised: r.advised, cells: {} }));
    row.cells[r.scenario] = r;
  }
  return rows;
}

/** `works`, `failed`, `inconclusive`, with `(expected X)` when an expectation was not met. */
export function cellText(r: DriverResult | undefined): string {
  if (!r) return '-';
  const label = r.outcome ?? 'inconclusive';
  return r.verdict === 'fail' ? `${label} (expected ${r.expected ?? '?'})` : label;
}

/** The pooler, its mode and pool, and the server, as the reports head them. */
export function poolerText(report: DriversReport): string {
  const d = report.discovery;
  const who = d.pooler ? `${d.pooler.name}${d.pooler.version ? ` ${d.pooler.version}` : ''}` : 'no pooler identified';
  return `${who}, ${d.mode} pooling${d.poolSize !== null ? `, pool of ${poolText(d)}` : ''}, PostgreSQL ${d.serverVersion}`;
}

/**
 * The scenario columns of a report: the drivers' three always, a framework's migration only
 * where the report has one (a run of drivers alone keeps the table it always had).
 */
export function scenarioColumns(report: Pick<DriversReport, 'results'>): DriverScenarioId[] {
  return DRIVER_SCENARIOS.filter((s) => s !== 'migration' || report.results.some((r) => r.scenario === s));
}

export function renderDriversTerminal(report: DriversReport): string {
  const rows = rowsOf(report);
  const columns = scenarioColumns(report);
  const head = ['driver', 'configuration', ...columns];
  const table = [
    head,
    ...rows.map((r) => [
      r.driver,
      `${r.config}${r.advised ? ' (advised)' : ''}`,
      ...columns.map((s) => cellText(r.cells[s])),
    ]),
  ];
  const widths = head.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  const lines = table.map((row) =>
    row
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  const notes = report.results
    .filter((r) => r.outcome !== 'works')
    .map((r) => `  ${r.id}: ${r.outcome ?? 'inconclusive'}: ${r.reason}${r.advice ? `\n    advice: ${r.advice}` : ''}`);
  const skipped = report.skipped.map((s) => `  ${s.driver}: skipped: ${s.reason}`);
  return [
    `pooltest drivers: ${report.target.host}:${report.target.port} (${poolerText(report)})`,
    '',
    ...lines,
    ...(notes.length > 0 ? ['', ...notes] : []),
    ...(skipped.length > 0 ? ['', ...skipped] : []),
    '',
    `${driversSummaryLine(report)}  (${(report.durationMs / 1000).toFixed(1)} s)`,
    '',
  ].join('\n');
}

const md = (t: string) => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderDriversMarkdown(report: DriversReport): string {
  const rows = rowsOf(report);
  const columns = scenarioColumns(report);
  const out = [
    `# pooltest drivers: ${md(poolerText(report))}`,
    '',
    `**${md(driversSummaryLine(report))}.**`,
    '',
    `| driver | configuration | ${columns.join(' | ')} |`,
    `|---|---|${columns.map(() => '---|').join('')}`,
    ...rows.map(
      (r) =>
        `| ${r.driver} | \`${md(r.config)}\`${r.advised ? ' (advised)' : ''} | ${columns.map((s) => md(cellText(r.cells[s]))).join(' | ')} |`,
    ),
    '',
  ];
  const needs = report.results.filter((r) => r.outcome !== 'works');
  if (needs.length > 0) {
    out.push('## Details', '');
    for (const r of needs)
      out.push(
        `- **${md(r.id)}**: ${r.outcome ?? 'inconclusive'}: ${md(r.reason)}${r.advice ? ` Advice: ${md(r.advice)}` : ''}`,
      );
    out.push('');
  }
  for (const s of report.skipped) out.push(`- ${s.driver}: skipped: ${md(s.reason)}`);
  return `${out.join('\n')}\n`;
}
