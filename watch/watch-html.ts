/**
 * `--html`: one self-contained page (inline CSS, no script, no external resources) to attach to
 * a migration ticket. Deliberately simple and independent of the main HTML report in
 * reporters/. Every text from the traffic is HTML-escaped.
 */
import {
  basisText,
  connectionText,
  evidenceText,
  nothingFoundText,
  trafficText,
  unansweredText,
} from './watch-render.js';
import type { WatchReport } from './watch-types.js';
import { pendingText } from '../audit/traffic-markdown.js';

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#222}
h1{font-size:1.5rem}h2{font-size:1.1rem;margin-top:2rem}code,pre{font:13px ui-monospace,monospace}
pre{background:#f5f5f5;padding:.5rem;white-space:pre-wrap;word-break:break-word;margin:.25rem 0}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
.breaks{color:#b00020;font-weight:bold}.fine{color:#1b5e20}.unknown{color:#8a6d00}.dim{color:#666}`;

/** Renders `report` as an HTML document. */
export function renderWatchHtml(report: WatchReport): string {
  const s = report.summary;
  const parts: string[] = [];
  parts.push(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pooltest watch</title><style>${STYLE}</style></head><body>`,
  );
  const basis = `<span class="dim">(${esc(basisText(report.pooler.basis))})</span>`;
  parts.push(
    `<h1>pooltest watch</h1><p>Upstream <code>${esc(report.upstream)}</code>; pooler: ${esc(report.pooler.name)} ${basis}.</p>`,
  );
  if (report.command !== null)
    parts.push(
      `<p>Command <code>${esc(report.command.argv.join(' '))}</code>: ${esc(report.command.signal ?? `exit ${report.command.exitCode}`)}.</p>`,
    );
  const counts: [string, number][] = [
    ['connections', s.connections],
    ['transactions', s.transactions],
    ['statements', s.statements],
    ['not seen', s.unanswered],
    ['findings', s.findings],
    ['breaking', s.breaking],
  ];
  const names = counts.map(([name]) => `<th>${name}</th>`).join('');
  const values = counts.map(([, n]) => `<td>${n}</td>`).join('');
  parts.push(`<table><tr>${names}</tr><tr>${values}</tr></table>`);
  const unseen = unansweredText(s);
  if (unseen !== null) parts.push(`<p class="breaks">${esc(unseen)}</p>`);
  if (report.findings.length === 0) {
    const none = nothingFoundText(s);
    parts.push(`<p class="${none.clean ? 'fine' : 'unknown'}">${esc(none.text)}</p>`);
  }
  for (const f of report.findings) {
    const cls = f.breaks === true ? 'breaks' : f.breaks === false ? 'fine' : 'unknown';
    const verdict = f.breaks === true ? 'breaks' : f.breaks === false ? 'fine' : 'unknown';
    parts.push(`<section><h2><code>${esc(f.check)}</code>: ${esc(f.state)}</h2>`);
    parts.push(
      `<p>${esc(f.title)}. Pooler: <b>${esc(f.outcome ?? 'unknown')}</b>, <span class="${cls}">${verdict}</span>. ${esc(connectionText(f))}.</p>`,
    );
    parts.push(
      `<p>Transaction ${f.created.transaction}, created (${esc(f.created.what)}):</p><pre>${esc(f.created.sql)}</pre>`,
    );
    parts.push(
      f.used === null
        ? '<p>No later transaction used it in this run.</p>'
        : `<p>Transaction ${f.used.transaction}, ${f.use === 'explicit' ? 'used' : 'ran under it'} (${esc(f.used.what)}):</p><pre>${esc(f.used.sql)}</pre>`,
    );
    parts.push(`<p>${esc(evidenceText(f))}: ${esc(f.how)}</p>`);
    parts.push(`<p>Fix: ${esc(f.advice)}</p></section>`);
  }
  if ((report.traffic ?? []).length > 0) {
    parts.push('<section><h2>Traffic the protocol checks concern</h2><ul>');
    for (const tr of report.traffic ?? [])
      parts.push(
        `<li><code>${esc(tr.check)}</code>${esc(pendingText(tr))}: ${esc(trafficText(tr))}<pre>${esc(tr.statement)}</pre>Fix: ${esc(tr.advice)}</li>`,
      );
    parts.push('</ul></section>');
  }
  if (report.warnings.length > 0)
    parts.push(`<h2>Warnings</h2><ul>${report.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>`);
  parts.push('</body></html>\n');
  return parts.join('\n');
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
