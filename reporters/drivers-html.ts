/**
 * The drivers report as one self-contained HTML page (`pooltest drivers --html FILE`): what was
 * tested, the driver x configuration x scenario table, then a card per result with its reason,
 * advice, facts, the sequence diagram of its phase (the checks' diagrams, reporters/
 * sequence-svg.ts, drawn from the steps of that scenario: A's uses, the observer that took A's
 * backend, B's runs) and every step in a table. Like the checks' page it loads nothing and runs
 * no script: the Content Security Policy admits none.
 */
import type { DriverResult, DriversReport } from '../drivers/run-drivers.js';
import { phaseSteps } from '../drivers/judge.js';
import { redactUrl } from '../engine/target/target.js';
import type { StepRecord } from '../engine/types.js';
import { STYLE } from './html-assets.js';
import { esc, token } from './html.js';
import { renderSequenceSvg } from './sequence-svg.js';
import { stepOutcome } from './step-text.js';
import { cellText, poolerText, scenarioColumns } from './drivers-text.js';
import { driverOutcomeBreaks, driversSummaryLine } from './drivers-summary.js';

/** Renders `report` as one HTML document. */
export function renderDriversHtml(report: DriversReport): string {
  const title = `pooltest drivers: ${poolerText(report)}`;
  const t = report.target;
  const meta = [
    `target <code>${esc(`${t.user}@${t.host}:${t.port}/${t.database}`)}</code>`,
    `run <code>${esc(report.runId)}</code>`,
    esc(report.startedAt),
    `${esc(driversSummaryLine(report))} (${(report.durationMs / 1000).toFixed(1)} s)`,
  ].join(' · ');
  const skipped = report.skipped.map((s) => `<li>${esc(s.driver)}: skipped: ${esc(s.reason)}</li>`).join('');
  const body = [
    `<header><h1>${esc(title)}</h1><p class="meta">${meta}</p></header>`,
    overview(report),
    skipped ? `<section class="panel" id="skipped"><h2>Skipped</h2><ul>${skipped}</ul></section>` : '',
    ...report.results.map((r) => card(r, stepsOf(report, r))),
  ].join('\n');
  const page = [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title><style>${STYLE}</style></head>`,
    `<body><main>\n${body}\n</main></body></html>`,
  ].join('\n');
  // Redacted like every report: a driver's message could quote a connection string.
  return `${redactUrl(page)}\n`;
}

/** The steps of `r`'s scenario in its configuration's record (none when it was not run). */
function stepsOf(report: DriversReport, r: DriverResult): StepRecord[] {
  const record = r.record !== null ? report.records[r.record] : undefined;
  return record ? phaseSteps(record.steps, r.scenario) : [];
}

function overview(report: DriversReport): string {
  const rows: string[] = [];
  const seen = new Set<string>();
  for (const r of report.results) {
    const key = `${r.driver}\u0000${r.config}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const cells = scenarioColumns(report).map((s) => {
      const x = report.results.find((y) => y.driver === r.driver && y.config === r.config && y.scenario === s);
      return x ? `<a href="#${anchor(x.id)}">${outcome(x)}</a>` : '-';
    });
    const config = `<code>${esc(r.config)}</code>${r.advised ? ' (advised)' : ''}`;
    rows.push(`<tr><td>${esc(r.driver)}</td><td>${config}</td>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`);
  }
  const head = ['driver', 'configuration', ...scenarioColumns(report)].map((h) => `<th>${h}</th>`).join('');
  return `<section class="panel" id="overview"><h2>Drivers</h2><table><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

function outcome(r: DriverResult): string {
  const cls =
    driverOutcomeBreaks(r.outcome) || r.verdict === 'fail' ? 'breaks' : r.outcome === null ? 'v-inconclusive' : '';
  return `<code class="${cls}">${esc(cellText(r))}</code>`;
}

function card(r: DriverResult, steps: StepRecord[]): string {
  const parts = [
    `<section class="check" id="${anchor(r.id)}" data-id="${esc(r.id)}" data-outcome="${esc(r.outcome ?? 'inconclusive')}">`,
    `<div><h3><code>${esc(r.id)}</code></h3> · ${esc(r.driver)} ${esc(r.driverVersion ?? '')} · outcome ${outcome(r)}${r.expected !== null ? ` · expected <code>${esc(r.expected)}</code>` : ''}</div>`,
    `<p><b>${r.outcome === null ? 'Why inconclusive' : 'Evidence'}:</b> ${esc(r.reason)}</p>`,
  ];
  if (r.advice) parts.push(`<p><b>Advice:</b> ${esc(r.advice)}</p>`);
  const diagram = renderSequenceSvg({ id: r.id, steps, outcome: r.outcome, facts: r.facts });
  if (diagram) parts.push(diagram);
  const facts = Object.entries(r.facts);
  if (facts.length > 0)
    parts.push(
      `<details><summary>facts (${facts.length})</summary><dl class="facts">${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v === null ? 'null' : String(v))}</dd>`).join('')}</dl></details>`,
    );
  if (steps.length > 0) {
    const rows = steps.map(
      (s) =>
        `<tr><td>${s.seq}</td><td>${esc(s.session)}</td><td class="mono">${esc(s.pid ?? '-')}</td><td class="mono">${esc(s.tag)}</td><td class="mono">${esc(s.sql)}</td><td class="mono">${esc(stepOutcome(s))}</td><td>${s.durationMs}</td></tr>`,
    );
    parts.push(
      `<details><summary>steps (${steps.length})</summary><table class="steps"><thead><tr><th style="width:4%">#</th><th style="width:7%">session</th><th style="width:8%">pid</th><th style="width:16%">tag</th><th>SQL</th><th style="width:28%">answer</th><th style="width:6%">ms</th></tr></thead><tbody>${rows.join('')}</tbody></table></details>`,
    );
  }
  parts.push('</section>');
  return parts.join('\n');
}

function anchor(id: string): string {
  return `driver-${token(id)}`;
}
