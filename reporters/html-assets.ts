/**
 * The HTML report's inline style and script. Both live in the one file the report is (it must
 * open offline, from a CI artifact or an e-mail attachment), and the page's Content Security
 * Policy allows exactly this script by its hash and nothing else: even text that somehow got
 * past escaping could not run.
 */
import { createHash } from 'node:crypto';

/**
 * Layout: nothing may be wider than the page. Long SQL folds; a diagram keeps its text at its
 * size, written under its arrows so that it reads at 800 px, and whatever of the lifelines is
 * wider than its box scrolls sideways inside it instead of shrinking to fit.
 */
export const STYLE = `
:root{--fg:#1d232a;--muted:#5b6570;--line:#d5dbe1;--bg:#fff;--card:#f7f9fb;--pass:#1a7f37;--fail:#cf222e;--inc:#9a6700;--skip:#6e7781;--reach:#ffd7d5;--land:#dbe9ff}
*{box-sizing:border-box}
html,body{margin:0;padding:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1200px;margin:0 auto;padding:16px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:20px 0 8px}h3{font-size:15px;margin:0;display:inline}
code,.mono,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.meta{color:var(--muted);overflow-wrap:anywhere}
.panel,.check{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px;margin:10px 0;min-width:0;overflow-wrap:anywhere}
.counts span{display:inline-block;margin-right:14px}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{border-bottom:1px solid var(--line);padding:3px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{color:var(--muted);font-weight:600}
.verdict{font-weight:600;border-radius:10px;padding:0 8px;display:inline-block}
.v-pass{color:var(--pass)}.v-fail{color:var(--fail)}.v-inconclusive{color:var(--inc)}.v-skipped{color:var(--skip)}.v-observed{color:var(--skip)}
.breaks{color:var(--fail);font-weight:600}
.check-title{color:var(--muted)}
.filters label{margin-right:12px;white-space:nowrap}
.filters fieldset{display:inline-block;border:1px solid var(--line);border-radius:6px;margin:0 8px 8px 0}
dl.facts{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:0 12px;margin:6px 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.diagram{margin:8px 0;max-width:100%;overflow-x:auto}
svg.seq{display:block;max-width:none;background:#fff;border:1px solid var(--line);border-radius:6px}
svg.seq text{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:11px;fill:var(--fg)}
svg.seq .lifeline line{stroke:#9aa4ae;stroke-dasharray:4 3}
svg.seq .lifeline rect{fill:#eef2f6;stroke:#9aa4ae}
svg.seq .lifeline.backend rect{fill:#fff4dc}
svg.seq .step line{stroke:#57606a;stroke-width:1.4}
svg.seq marker path{fill:#57606a}
svg.seq .step.error line{stroke:var(--fail)}svg.seq .step.error .answer{fill:var(--fail)}
svg.seq .step.waited line{stroke-dasharray:3 3}svg.seq .step.waited .answer{fill:var(--inc)}
svg.seq .step .answer{fill:var(--muted)}
svg.seq .step .label{fill:#fff;opacity:.9}svg.seq[data-reached="true"] .step.decisive .label{fill:var(--reach)}svg.seq[data-reached="false"] .step.decisive .label{fill:var(--land)}
svg.seq .step.crossing.reached line,svg.seq[data-reached="true"] .step.decisive line{stroke:var(--fail);stroke-width:2.4}
svg.seq[data-reached="false"] .step.decisive line{stroke:#2f6fde;stroke-width:2.4}
svg.seq .step.inferred line{stroke-dasharray:6 3}
svg.seq .step.decisive .answer{fill:var(--fg);font-weight:600}
svg.seq .band.decisive.reached{fill:var(--reach)}svg.seq .band.decisive.landed{fill:var(--land)}
svg.seq .band.crossing{fill:none;stroke:#9aa4ae;stroke-dasharray:4 3}
svg.seq .path{stroke-width:4;opacity:.55}svg.seq .path.reached{stroke:var(--fail)}svg.seq .path.landed{stroke:#2f6fde}
svg.seq circle.state{fill:var(--fail)}
svg.seq .x{stroke:var(--fail);stroke-width:2}svg.seq circle.unread{fill:#9aa4ae}
.caption{color:var(--muted);font-size:12px;margin:2px 0}
.decisive-text{margin:4px 0}
.legend{font-size:12px}.legend dl.facts dt{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:var(--fg)}
details>summary{cursor:pointer;color:var(--muted)}
[hidden]{display:none!important}
`;

/** Filters: a card or table row shows when its severity and verdict are ticked (and it breaks, if asked). */
export const SCRIPT = `(function(){
var boxes=Array.prototype.slice.call(document.querySelectorAll('input[data-filter]'));
function ticked(kind){var on={};boxes.forEach(function(b){if(b.dataset.filter===kind&&b.checked)on[b.value]=true;});return on;}
function apply(){
var sev=ticked('severity'),ver=ticked('verdict'),breaks=document.getElementById('f-breaks').checked,shown=0;
document.querySelectorAll('[data-severity]').forEach(function(el){
var show=!!sev[el.dataset.severity]&&!!ver[el.dataset.verdict]&&(!breaks||el.dataset.breaks==='true');
el.hidden=!show;if(show&&el.classList.contains('check'))shown++;});
document.getElementById('shown').textContent=String(shown);}
boxes.forEach(function(b){b.addEventListener('change',apply);});apply();})();`;

/** The CSP `script-src` source that allows {@link SCRIPT} and nothing else. */
export function scriptHash(): string {
  return `'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`;
}
