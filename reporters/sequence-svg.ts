/**
 * A check's recorded steps as an inline SVG sequence diagram: one lifeline per client session
 * on the left, one per backend pid on the right, and per step an arrow from the client to the
 * backend that ran it, with the tag and SQL written under the arrow and, below that, what came
 * back (rows, error with SQLSTATE, notices, a wait). The decisive step
 * (reporters/sequence-model.ts) is a band with its sentence written out; the crossing is joined
 * to the creating step along the backend's lifeline. A legend beside the drawing names each
 * lifeline and mark.
 *
 * Text keeps its size: the SVG is drawn at its natural width rather than shrinking 11 px text
 * to 5. The text goes under the arrows, from the left edge, not in a column to their right:
 * with the text beside them a diagram was about 1,070 px wide and at 800 px the SQL and the
 * DECISIVE line were past the right edge (issue 40). Under the arrows the diagram is as wide
 * as the wider of its lifelines and one folded line (about 600 px), and whatever the lifelines
 * need beyond the page scrolls while the text stays in view. Nothing is cut: long SQL and
 * answers are folded onto more lines, so the leaked value and the error read in full on a
 * screen, on touch and in print, not only in a tooltip.
 *
 * Hand-written rather than a diagram library: the report must open offline from one file, and
 * the drawing is a few rectangles, lines and text elements.
 */
import type { CheckResult } from '../engine/types.js';
import { esc, token } from './html.js';
import { MARKS, sessionRole } from './diagram-legend.js';
import { sequenceModel, type Arrow, type SequenceModel } from './sequence-model.js';

const LANE = 76;
const BACKEND = 96;
const TOP = 40;
const LINE = 14;
/** Characters per text line: 11 px monospace is about 6.6 px a character. */
const CHARS = 88;
/** Width of the text under the arrows, {@link CHARS} characters and a margin. */
const TEXT = Math.ceil(CHARS * 6.6) + 12;
/** Where a row's first text baseline sits below its arrow. */
const UNDER = 22;

/** The SVG (and its legend) for `check`, or an empty string when it recorded no steps. */
export function renderSequenceSvg(check: Pick<CheckResult, 'id' | 'steps' | 'outcome' | 'facts'>): string {
  const model = sequenceModel(check);
  if (model.arrows.length === 0) return '';
  const noBackend = model.arrows.some((a) => a.backend === -1);
  const backendCount = model.backends.length + (noBackend ? 1 : 0);
  const laneX = (i: number): number => 10 + LANE / 2 + i * LANE;
  const backendX = (j: number): number =>
    10 + model.lanes.length * LANE + 24 + BACKEND / 2 + (j === -1 ? model.backends.length : j) * BACKEND;
  const textX = 10;
  const width = Math.max(10 + model.lanes.length * LANE + 24 + backendCount * BACKEND + 10, textX + TEXT);
  // Rows grow with their folded text, which sits under the row's arrow.
  const texts = model.arrows.map((a) => rowText(a, model));
  const tops: number[] = [];
  let y = TOP + 12;
  for (const t of texts) {
    tops.push(y);
    y += rowHeight(t) + 4;
  }
  const height = y + 8;
  const parts: string[] = [];
  // Bands first, so lines and text draw on top of them.
  model.arrows.forEach((a, i) => {
    const h = rowHeight(texts[i]!);
    if (a.decisive)
      parts.push(
        `<rect class="band decisive ${model.decisive!.reached ? 'reached' : 'landed'}" x="2" y="${tops[i]! - 4}" width="${width - 4}" height="${h}" rx="4"/>`,
      );
    else if (a.crossing)
      parts.push(
        `<rect class="band crossing ${a.crossing.reached ? 'reached' : 'landed'}" x="2" y="${tops[i]! - 4}" width="${width - 4}" height="${h}" rx="4"/>`,
      );
  });
  const bottom = height - 6;
  model.lanes.forEach((lane, i) =>
    parts.push(lifeline(laneX(i), bottom, lane, 'client', `data-session="${esc(lane)}"`)),
  );
  model.backends.forEach((pid, j) =>
    parts.push(lifeline(backendX(j), bottom, `pid ${pid}`, 'backend', `data-pid="${pid}"`)),
  );
  if (noBackend) parts.push(lifeline(backendX(-1), bottom, 'pid not read', 'backend none', 'data-pid=""'));
  for (const c of model.crossings) {
    // The state's path: down the backend lifeline from the creating step to the other client.
    const from = model.arrows.findIndex((a) => a.step.seq === c.fromSeq);
    const to = model.arrows.findIndex((a) => a.step.seq === c.toSeq);
    if (from < 0 || to < 0) continue;
    const x = backendX(model.backends.indexOf(c.backend));
    parts.push(
      `<line class="path ${c.reached ? 'reached' : 'landed'}" x1="${x}" y1="${tops[from]! + 8}" x2="${x}" y2="${tops[to]! + 8}"/>`,
    );
  }
  // Marker ids are per diagram: one page holds a diagram per check, and ids must be unique.
  const ah = `ah-${token(check.id)}`;
  model.arrows.forEach((a, i) =>
    parts.push(arrow(a, texts[i]!, tops[i]!, laneX(a.lane), backendX(a.backend), textX, ah)),
  );
  const caption = omitted(model);
  return [
    `<div class="diagram" tabindex="0"><svg class="seq" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(`sequence of ${check.id}`)}" data-check="${esc(check.id)}"${model.decisive ? ` data-decisive="${model.decisive.seq}" data-reached="${model.decisive.reached}"` : ''}>`,
    `<defs><marker id="${ah}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>`,
    ...parts,
    '</svg></div>',
    model.decisive
      ? `<p class="decisive-text" data-check="${esc(check.id)}"><b>Decisive step ${model.decisive.seq} (${esc(model.decisive.kind)}):</b> ${esc(model.decisive.text)}</p>`
      : '',
    caption ? `<p class="caption">${esc(caption)}</p>` : '',
    legend(model),
  ].join('');
}

interface RowText {
  sql: string[];
  answer: string[];
}

/** A row's height from its band's top (4 above the arrow's row) to below its last line. */
function rowHeight(t: RowText): number {
  return 4 + 8 + UNDER + (t.sql.length + t.answer.length - 1) * LINE + 6;
}

/** The label and answer of one row, folded to {@link CHARS}, never cut. */
function rowText(a: Arrow, model: SequenceModel): RowText {
  const s = a.step;
  const prefix = a.decisive
    ? `DECISIVE: ${model.decisive!.text} · `
    : a.crossing
      ? `${a.crossing.reached ? 'crossing' : 'landed'}: ${a.crossing.toSession} on ${a.crossing.fromSession}'s backend ${a.crossing.backend} (step ${a.crossing.fromSeq}) · `
      : a.creates
        ? 'creates state · '
        : '';
  const inferred = a.inferred ? ' (pid not read: ran inside its open transaction)' : '';
  return { sql: fold(`${s.seq} ${s.session} ${s.tag}: ${s.sql}`), answer: fold(`${prefix}→ ${a.answer}${inferred}`) };
}

/** `text` on one line per {@link CHARS} characters, broken at spaces where it can be. */
export function fold(text: string, width = CHARS): string[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lines: string[] = [];
  let rest = flat;
  while (rest.length > width) {
    const cut = rest.lastIndexOf(' ', width);
    const at = cut > width / 2 ? cut : width;
    lines.push(rest.slice(0, at));
    rest = rest.slice(at).trimStart();
  }
  lines.push(rest);
  return lines;
}

function lifeline(x: number, bottom: number, label: string, kind: string, data: string): string {
  const w = Math.max(kind === 'client' ? LANE - 12 : BACKEND - 12, label.length * 7 + 8);
  return `<g class="lifeline ${kind}" ${data}><line x1="${x}" y1="${TOP - 8}" x2="${x}" y2="${bottom}"/><rect x="${x - w / 2}" y="6" width="${w}" height="24" rx="4"/><text x="${x}" y="22" text-anchor="middle">${esc(label)}</text></g>`;
}

function arrow(a: Arrow, t: RowText, y: number, x1: number, x2: number, textX: number, ah: string): string {
  const s = a.step;
  const classes = [
    'step',
    a.kind,
    a.creates ? 'creates' : '',
    a.crossing ? (a.crossing.reached ? 'crossing reached' : 'crossing landed') : '',
    a.decisive ? 'decisive' : '',
    a.inferred ? 'inferred' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const marker = a.creates ? `<circle class="state" cx="${x2}" cy="${y + 8}" r="5"/>` : '';
  // A step that did not read its pid ends on the "pid not read" lane: a cross only when it failed.
  const cross =
    a.backend !== -1
      ? ''
      : a.kind === 'ok'
        ? `<circle class="unread" cx="${x2}" cy="${y + 8}" r="3"/>`
        : `<path class="x" d="M${x2 - 5},${y + 3} l10,10 m0,-10 l-10,10"/>`;
  const lines = (cls: string, rows: string[], first: number): string =>
    rows.map((r, k) => `<text class="${cls}" x="${textX}" y="${first + k * LINE}">${esc(r)}</text>`).join('');
  const first = y + 8 + UNDER;
  const count = t.sql.length + t.answer.length;
  const longest = Math.max(...t.sql.map((r) => r.length), ...t.answer.map((r) => r.length));
  // The lifelines run under the text: a backing the colour of the row keeps it legible.
  const backing = `<rect class="label" x="${textX - 4}" y="${first - 11}" width="${Math.ceil(longest * 6.6) + 8}" height="${count * LINE + 2}" rx="2"/>`;
  return [
    `<g class="${classes}" data-seq="${s.seq}" data-pid="${s.pid ?? ''}" data-session="${esc(s.session)}">`,
    backing,
    `<line x1="${x1}" y1="${y + 8}" x2="${x2 - 6}" y2="${y + 8}" marker-end="url(#${ah})"/>`,
    marker,
    cross,
    lines('sql', t.sql, first),
    lines('answer', t.answer, first + t.sql.length * LINE),
    '</g>',
  ].join('');
}

/** The lifelines this diagram draws and the marks it uses, each explained. */
function legend(m: SequenceModel): string {
  const lanes = m.lanes.map((l) => [l, sessionRole(l)] as const);
  const used = MARKS.filter(([mark]) => {
    if (mark === 'pid not read') return m.arrows.some((a) => a.backend === -1);
    if (mark === 'dashed arrow') return m.arrows.some((a) => a.inferred);
    if (mark === 'red dot' || mark === 'thick line') return m.crossings.length > 0;
    if (mark === 'pink band') return m.decisive?.reached === true;
    if (mark === 'blue band') return m.decisive?.reached === false;
    return true;
  });
  const items = [...lanes, ...used].map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('');
  return `<details class="legend" open><summary>How to read this diagram</summary><dl class="facts">${items}</dl></details>`;
}

function omitted(m: SequenceModel): string {
  const parts: string[] = [];
  if (m.omittedSessions > 0) parts.push(`${m.omittedSessions} more client(s)`);
  if (m.omittedSteps > 0) parts.push(`${m.omittedSteps} more step(s)`);
  return parts.length > 0 ? `Not drawn: ${parts.join(' and ')}; every step is in the table below.` : '';
}
