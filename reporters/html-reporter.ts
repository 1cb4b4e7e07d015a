/**
 * The HTML report (`--html FILE`, and report.html in every stored run): one self-contained
 * page that opens offline. At the top what was tested, discovery and the sweep; then filters
 * (severity, verdict, breaking outcomes only), an overview table, and a card per check with
 * its outcome, verdict, evidence, advice, facts, a sequence diagram of the recorded steps
 * (reporters/sequence-svg.ts) and every step in a table.
 *
 * Every piece of report text goes through `esc` (reporters/html.ts); the page loads nothing
 * from the network, and its Content Security Policy admits only its own inline script.
 */
import { describeWireFinding } from '../engine/discovery/probes.js';
import { redactUrl } from '../engine/target/target.js';
import { sweepState } from '../engine/types.js';
import type { CheckResult, Report, Severity, Verdict } from '../engine/types.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import { SCRIPT, STYLE, scriptHash } from './html-assets.js';
import { esc, token } from './html.js';
import { poolerText, poolText, targetText } from './report-text.js';
import { renderSequenceSvg } from './sequence-svg.js';
import { SEVERITY_ORDER, bySeverity } from './severity.js';
import { stepOutcome } from './step-text.js';
import { observedReading, verdictPhrase } from './verdict-text.js';
import { countsLine, summaryCounts, type CountPart } from './summary-counts.js';

const VERDICTS: readonly Verdict[] = ['fail', 'inconclusive', 'pass', 'observed', 'skipped'];

/** Renders `report` as one HTML document. */
export function renderHtml(report: Report): string {
  const checks = bySeverity(report.checks);
  const title = `pooltest: ${poolerText(report.discovery)}`;
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src ${scriptHash()}`;
  const body = [
    `<header><h1>${esc(title)}</h1><p class="meta">${header(report)}</p></header>`,
    counts(report),
    discovery(report),
    filters(),
    overview(checks),
    ...checks.map(card),
  ].join('\n');
  const page = [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title><style>${STYLE}</style></head>`,
    `<body><main>\n${body}\n</main><script>${SCRIPT}</script></body></html>`,
  ].join('\n');
  return redactUrl(page) + '\n';
}

function header(r: Report): string {
  const profile = r.profile
    ? `profile <code>${esc(r.profile.name)}</code> (${esc(r.profile.ref)})`
    : 'no profile: observations only';
  const direct = r.direct ? ` · behind it <code>${esc(targetText(r.direct))}</code>` : '';
  return [
    `target <code>${esc(targetText(r.target))}</code>${direct}`,
    `PostgreSQL ${esc(r.discovery.serverVersion)}`,
    profile,
    `pooltest ${esc(r.tool.version)}`,
    `run <code>${esc(r.runId)}</code>`,
    esc(r.startedAt),
  ].join(' · ');
}

function counts(r: Report): string {
  const s = r.summary;
  const n = summaryCounts(r.checks);
  // The words of every renderer (summary-counts.ts), each count coloured as its verdict is, the
  // breaking outcomes as a failure when there are any.
  const cells = [
    `${r.checks.length} checks`,
    countsLine(n, (p) => `<span class="v-${token(countClass(p, n.breaking))}">${esc(p.text)}</span>`) +
      (s.interrupted ? ', interrupted' : ''),
    `exit code ${s.exitCode}`,
    `${(r.durationMs / 1000).toFixed(1)} s`,
  ];
  return `<section class="panel counts" id="summary">${cells.map((c) => `<span>${c}</span>`).join('')}</section>`;
}

/** The class of a summary part: its verdict's, the breaks' as a failure's (or a pass's when none). */
function countClass(p: CountPart, breaking: number): string {
  if (p.kind !== 'breaks') return p.kind;
  return breaking > 0 ? 'fail' : 'pass';
}

function discovery(r: Report): string {
  const d = r.discovery;
  const yes = (b: boolean): string => (b ? 'yes' : 'no');
  const facts: Array<[string, string]> = [
    ['mode', d.mode],
    ['pool', poolText(d)],
    ['server', d.serverVersion],
    ['pooler', d.pooler ? `${d.pooler.name} ${d.pooler.version ?? ''} (${d.pooler.how})` : 'not identified'],
    ['shared between connected clients', yes(d.sharedAcrossClients)],
    ['client keeps its backend', yes(d.clientKeepsBackend)],
    ['backends reused after disconnect', yes(d.reuseAfterDisconnect)],
    ['transaction blocks', d.transactionBlocks],
    ['holders', d.holderStrategy],
    ['round trip / wait bound', `${d.rttMs} ms / ${d.waitBoundMs} ms`],
    ...d.notes.map((n): [string, string] => ['note', n]),
    ...(d.wireFindings ?? []).map((f): [string, string] => ['wire finding', describeWireFinding(f)]),
  ];
  const state = r.sweep ? sweepState(r.sweep) : null;
  const sweep = !r.sweep
    ? 'not run'
    : state === 'clean'
      ? `<span class="v-pass">clean</span>: ${r.sweep.backendsVisited.length} backend(s) visited (${esc(r.sweep.backendsVisited.join(', '))}) via ${esc(r.sweep.via.join(' and '))}`
      : state === 'unknown'
        ? `<span class="v-inconclusive">unknown</span>: could not look for leftovers: ${esc(r.sweep.reason ?? 'no reason recorded')}`
        : `<span class="v-fail">dirty</span>: pooltest left state behind: ${esc(r.sweep.leftovers.join('; '))}`;
  return `<section class="panel" id="discovery"><h2>Discovery</h2>${factList(facts)}<h2>Sweep</h2><p id="sweep">${sweep}</p></section>`;
}

function filters(): string {
  const box = (kind: string, value: string): string =>
    `<label><input type="checkbox" data-filter="${kind}" value="${value}" checked> ${value}</label>`;
  return [
    '<section class="panel filters" id="filters"><h2>Filter</h2>',
    `<fieldset><legend>severity</legend>${SEVERITY_ORDER.map((s) => box('severity', s)).join('')}</fieldset>`,
    `<fieldset><legend>verdict</legend>${VERDICTS.map((v) => box('verdict', v)).join('')}</fieldset>`,
    '<fieldset><legend>outcome</legend><label><input type="checkbox" id="f-breaks" data-filter="breaks" value="breaks"> only outcomes that break an application</label></fieldset>',
    '<p class="meta"><span id="shown"></span> check(s) shown</p></section>',
  ].join('');
}

function overview(checks: readonly CheckResult[]): string {
  const rows = checks.map((c) => {
    // The title as the Markdown's table has it: an id alone tells a newcomer little.
    const id = `<a href="#${anchor(c.id)}"><code>${esc(c.id)}</code></a><br><span class="check-title">${esc(c.title)}</span>`;
    const cells = [id, esc(c.severity), outcomeCell(c), expectedCell(c), verdict(c)];
    return `<tr ${dataAttrs(c)}>${cells.map((x) => td(x)).join('')}</tr>`;
  });
  const head = tableHead([['check', '40%'], ['severity'], ['outcome'], ['expected'], ['verdict']]);
  return `<section class="panel" id="overview"><h2>Checks</h2><table>${head}<tbody>${rows.join('')}</tbody></table></section>`;
}

function card(c: CheckResult): string {
  const parts = [
    `<section class="check" id="${anchor(c.id)}" ${dataAttrs(c)}>`,
    `<div><h3><code>${esc(c.id)}</code> ${esc(c.title)}</h3> · ${esc(c.severity)} · outcome ${outcomeCell(c)} · expected ${expectedCell(c)} · ${verdict(c)}</div>`,
    `<p><b>Evidence:</b> ${esc(c.evidence)}</p>`,
  ];
  if (c.verdict !== 'pass' && c.verdict !== 'observed' && c.reason !== c.evidence)
    parts.push(`<p><b>Why ${esc(c.verdict)}:</b> ${esc(c.reason)}</p>`);
  if (c.expectedRef) parts.push(`<p class="meta">Expected per: ${esc(c.expectedRef)}</p>`);
  if (c.advice) parts.push(`<p><b>Advice:</b> ${esc(c.advice)}</p>`);
  if (!c.cleanup.ok) parts.push(`<p class="v-fail"><b>Cleanup failed:</b> ${esc(c.cleanup.detail)}</p>`);
  const diagram = renderSequenceSvg(c);
  if (diagram) parts.push(diagram);
  const facts = Object.entries(c.facts).map(([k, v]): [string, string] => [k, v === null ? 'null' : String(v)]);
  if (facts.length > 0) parts.push(`<details><summary>facts (${facts.length})</summary>${factList(facts)}</details>`);
  if (c.steps.length > 0)
    parts.push(
      `<details><summary>steps (${c.steps.length}) · ${c.statements} statement(s) · ${c.durationMs} ms</summary>${stepTable(c)}</details>`,
    );
  parts.push('</section>');
  return parts.join('\n');
}

function stepTable(c: CheckResult): string {
  const rows = c.steps.map((s) => {
    const mono = [s.pid ?? '-', s.tag, s.sql, stepOutcome(s)].map((x) => td(esc(x), 'mono'));
    return `<tr>${td(String(s.seq))}${td(esc(s.session))}${mono.join('')}${td(String(s.durationMs))}</tr>`;
  });
  const head = tableHead([
    ['#', '4%'],
    ['session', '7%'],
    ['pid', '8%'],
    ['tag', '14%'],
    ['SQL'],
    ['answer', '28%'],
    ['ms', '6%'],
  ]);
  return `<table class="steps">${head}<tbody>${rows.join('')}</tbody></table>`;
}

/** A table's head from its column names, each with its width where it has one. */
function tableHead(columns: ReadonlyArray<readonly [string, string?]>): string {
  const cells = columns.map(([name, width]) =>
    width ? `<th style="width:${width}">${name}</th>` : `<th>${name}</th>`,
  );
  return `<thead><tr>${cells.join('')}</tr></thead>`;
}

/** One cell, already escaped. */
function td(html: string, className?: string): string {
  return className ? `<td class="${className}">${html}</td>` : `<td>${html}</td>`;
}

function expectedCell(c: CheckResult): string {
  return c.expected !== null ? `<code>${esc(c.expected)}</code>` : '—';
}

function factList(facts: ReadonlyArray<[string, string]>): string {
  return `<dl class="facts">${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl>`;
}

function dataAttrs(c: CheckResult): string {
  return [
    `data-id="${esc(c.id)}"`,
    `data-severity="${esc(c.severity satisfies Severity)}"`,
    `data-verdict="${esc(c.verdict)}"`,
    `data-breaks="${outcomeBreaks(c.outcome) === true}"`,
  ].join(' ');
}

function outcomeCell(c: CheckResult): string {
  if (c.outcome === null) return '—';
  return `<code class="${outcomeBreaks(c.outcome) === true ? 'breaks' : ''}">${esc(c.outcome)}</code>`;
}

/** The verdict in the words of every renderer; an observation that breaks is red, like a failure. */
function verdict(c: CheckResult): string {
  const breaks = c.verdict === 'observed' && observedReading(c) === 'breaks' ? ' breaks' : '';
  return `<span class="verdict v-${token(c.verdict)}${breaks}">${esc(verdictPhrase(c))}</span>`;
}

function anchor(id: string): string {
  return `check-${token(id)}`;
}
