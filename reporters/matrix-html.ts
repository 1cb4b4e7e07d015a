/**
 * The compatibility matrix as one self-contained HTML page (docs/compatibility.html): the
 * table with the first column as the reference, differing cells highlighted, breaking outcomes
 * in red, and the targets described under it. No script at all; the policy forbids one.
 *
 * A matrix of many targets is wider than a laptop's page (at 800 px, 5 of 9 columns showed and
 * the rows' names scrolled away with the rest, issue 40): the table scrolls sideways inside
 * its box and the check column stays where it is (position: sticky), so every cell can be read
 * against its row. Borders are `separate`: collapsed borders do not travel with a sticky cell.
 */
import { redactUrl } from '../engine/target/target.js';
import { esc, token } from './html.js';
import { columnSweep, type Matrix, type MatrixCell } from './matrix.js';
import type { Severity } from '../engine/types.js';
import { verdictPhrase } from './verdict-text.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d232a}
main{max-width:1400px;margin:0 auto;padding:16px}h1{font-size:20px}
.wrap{overflow-x:auto;max-width:100%}
table{border-collapse:separate;border-spacing:0;font-size:12px}
th,td{border:solid #d5dbe1;border-width:0 1px 1px 0;padding:3px 6px;text-align:left;vertical-align:top}
tr>:first-child{border-left-width:1px}thead th{border-top-width:1px}
thead th{background:#eef2f6}
tr>th:first-child{position:sticky;left:0;z-index:1;background:#fff;min-width:13em;max-width:16em;overflow-wrap:anywhere;box-shadow:2px 0 0 #d5dbe1}
thead tr>th:first-child{z-index:2;background:#eef2f6}
tbody th .sev{font-weight:400}
td.differs{background:#fff4dc;font-weight:700}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.breaks{color:#cf222e}.v-fail{outline:2px solid #cf222e}.v-inconclusive{color:#9a6700}.none{color:#6e7781}
.sev{color:#5b6570}
`;

/** Renders the matrix as an HTML document. */
export function renderMatrixHtml(m: Matrix, title = 'pooltest compatibility matrix'): string {
  const columnHeads = m.columns.map(
    (c, i) => `<th title="${esc(c.target)}">${i === 0 ? 'reference: ' : ''}${esc(c.name)}</th>`,
  );
  const head = `<tr><th>check</th><th>severity</th>${columnHeads.join('')}</tr>`;
  const body = m.rows
    .map((r) => {
      const check = `<th><code>${esc(r.id)}</code><br><span class="sev">${esc(r.title)}</span></th>`;
      return `<tr data-id="${esc(r.id)}">${check}<td class="sev">${esc(r.severity)}</td>${r.cells.map((x) => cell(x, r.severity)).join('')}</tr>`;
    })
    .join('\n');
  const targets = m.columns
    .map((c) => {
      const profile = c.profile ? `, profile <code>${esc(c.profile)}</code>` : '';
      const run = `run <code>${esc(c.runId)}</code> at ${esc(c.startedAt)}`;
      const sweep = esc(columnSweep(c).text);
      const pooler = esc(c.pooler ?? 'no pooler identified');
      return `<li><b>${esc(c.name)}</b>: ${pooler}, ${esc(c.mode)} mode, PostgreSQL ${esc(c.server)}${profile}; ${run}; sweep ${sweep}</li>`;
    })
    .join('');
  const legend = [
    'Highlighted: the outcome differs from the reference column',
    'red: the outcome breaks an application written for a direct connection',
    "outlined: failed the column's profile",
  ].join('; ');
  const page = [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head>`,
    `<body><main><h1>${esc(title)}</h1>`,
    `<p>${m.rows.length} checks against ${m.columns.length} targets. ${legend}.</p>`,
    `<div class="wrap"><table><thead>${head}</thead><tbody>\n${body}\n</tbody></table></div>`,
    `<h2>Targets</h2><ul>${targets}</ul></main></body></html>`,
  ].join('\n');
  return redactUrl(page) + '\n';
}

function cell(x: MatrixCell, severity: Severity): string {
  const classes = [x.differs ? 'differs' : '', x.verdict ? `v-${token(x.verdict)}` : ''].filter(Boolean).join(' ');
  // A cell seen to vary shows every outcome seen (the page that records it says why in a note).
  const text =
    x.seen && x.seen.length > 1
      ? x.seen.map((o) => `<code class="${outcomeBreaks(o) === true ? 'breaks' : ''}">${esc(o)}</code>`).join(' | ')
      : x.outcome !== null
        ? `<code class="${x.breaks ? 'breaks' : ''}">${esc(x.outcome)}</code>`
        : `<span class="none">${x.verdict === null ? 'absent' : esc(x.verdict)}</span>`;
  const measure = x.measure ? ` <span class="measure">${esc(x.measure)}</span>` : '';
  // The verdict in the words of every renderer (verdict-text.ts); an observation that breaks is red.
  const phrase = x.verdict ? verdictPhrase({ verdict: x.verdict, outcome: x.outcome, severity }) : '';
  const verdict =
    x.verdict && x.verdict !== 'pass' && x.outcome !== null
      ? ` <span class="${x.verdict === 'observed' && x.breaks ? 'breaks' : 'none'}">${esc(phrase)}</span>`
      : '';
  return `<td class="${classes}">${text}${measure}${verdict}</td>`;
}
