/**
 * A check's recorded steps as an inline SVG sequence diagram: one lifeline per client session
 * on the left, one per backend pid on the right, and per step an arrow from the client to the
 * backend that ran it, labelled with the tag and SQL and, below, what came back (rows, error
 * with SQLSTATE, notices, a wait). The crossing (another client on the backend where A created
 * state) is a highlighted row, joined to the creating step along the backend's lifeline.
 *
 * Hand-written rather than a diagram library: the report must open offline from one file, and
 * the drawing is a few rectangles, lines and text elements. The SVG has a viewBox and scales
 * down to its container, so a wide diagram never overflows the page; full texts are in
 * `<title>` tooltips and in the step table next to the diagram.
 */
import type { CheckResult } from '../engine/types.js';
import { clip, esc, token } from './html.js';
import { sequenceModel, type Arrow, type SequenceModel } from './sequence-model.js';

const LANE = 76;
const BACKEND = 96;
const TOP = 40;
const ROW = 34;
const TEXT = 600;
const CHARS = 88;

/** The SVG for `check`, or an empty string when it recorded no steps. */
export function renderSequenceSvg(check: Pick<CheckResult, 'id' | 'steps' | 'outcome' | 'facts'>): string {
  const model = sequenceModel(check);
  if (model.arrows.length === 0) return '';
  const noBackend = model.arrows.some((a) => a.backend === -1);
  const backendCount = model.backends.length + (noBackend ? 1 : 0);
  const laneX = (i: number): number => 10 + LANE / 2 + i * LANE;
  const backendX = (j: number): number =>
    10 + model.lanes.length * LANE + 24 + BACKEND / 2 + (j === -1 ? model.backends.length : j) * BACKEND;
  const textX = 10 + model.lanes.length * LANE + 24 + backendCount * BACKEND + 16;
  const width = textX + TEXT;
  const rowY = (i: number): number => TOP + 12 + i * ROW;
  const height = rowY(model.arrows.length) + 8;
  const parts: string[] = [];
  // Crossing rows first, so lines and text draw on top of the band.
  model.arrows.forEach((a, i) => {
    if (a.crossing)
      parts.push(
        `<rect class="band ${a.crossing.reached ? 'reached' : 'landed'}" x="2" y="${rowY(i) - 4}" width="${width - 4}" height="${ROW - 2}" rx="4"/>`,
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
    const x = backendX(model.backends.indexOf(c.backend));
    parts.push(
      `<line class="path ${c.reached ? 'reached' : 'landed'}" x1="${x}" y1="${rowY(from) + 8}" x2="${x}" y2="${rowY(to) + 8}"/>`,
    );
  }
  // Marker ids are per diagram: one page holds a diagram per check, and ids must be unique.
  const ah = `ah-${token(check.id)}`;
  model.arrows.forEach((a, i) => parts.push(arrow(a, rowY(i), laneX(a.lane), backendX(a.backend), textX, ah)));
  const caption = omitted(model);
  return [
    `<svg class="seq" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" role="img" aria-label="${esc(`sequence of ${check.id}`)}" data-check="${esc(check.id)}">`,
    `<defs><marker id="${ah}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>`,
    ...parts,
    '</svg>',
    caption ? `<p class="caption">${esc(caption)}</p>` : '',
  ].join('');
}

function lifeline(x: number, bottom: number, label: string, kind: string, data: string): string {
  const w = kind === 'client' ? LANE - 12 : BACKEND - 12;
  return `<g class="lifeline ${kind}" ${data}><line x1="${x}" y1="${TOP - 8}" x2="${x}" y2="${bottom}"/><rect x="${x - w / 2}" y="6" width="${w}" height="24" rx="4"/><text x="${x}" y="22" text-anchor="middle">${esc(clip(label, 12))}</text></g>`;
}

function arrow(a: Arrow, y: number, x1: number, x2: number, textX: number, ah: string): string {
  const s = a.step;
  const classes = [
    'step',
    a.kind,
    a.creates ? 'creates' : '',
    a.crossing ? (a.crossing.reached ? 'crossing reached' : 'crossing landed') : '',
  ]
    .filter(Boolean)
    .join(' ');
  const label = `${s.seq} ${s.session} ${s.tag}: ${s.sql}`;
  const prefix = a.crossing
    ? `${a.crossing.reached ? 'CROSSING' : 'landed'}: ${a.crossing.toSession} on ${a.crossing.fromSession}'s backend ${a.crossing.backend} (step ${a.crossing.fromSeq}) · `
    : a.creates
      ? 'creates state · '
      : '';
  const answer = `${prefix}→ ${a.answer}`;
  const marker = a.creates ? `<circle class="state" cx="${x2}" cy="${y + 8}" r="5"/>` : '';
  // A step that did not read its pid ends on the "pid not read" lane: a cross only when it failed.
  const cross =
    a.backend !== -1
      ? ''
      : a.kind === 'ok'
        ? `<circle class="unread" cx="${x2}" cy="${y + 8}" r="3"/>`
        : `<path class="x" d="M${x2 - 5},${y + 3} l10,10 m0,-10 l-10,10"/>`;
  return [
    `<g class="${classes}" data-seq="${s.seq}" data-pid="${s.pid ?? ''}" data-session="${esc(s.session)}">`,
    `<title>${esc(`${label}\n${answer}`)}</title>`,
    `<line x1="${x1}" y1="${y + 8}" x2="${x2 - 6}" y2="${y + 8}" marker-end="url(#${ah})"/>`,
    marker,
    cross,
    `<text class="sql" x="${textX}" y="${y + 6}">${esc(clip(label, CHARS))}</text>`,
    `<text class="answer" x="${textX}" y="${y + 20}">${esc(clip(answer, CHARS))}</text>`,
    '</g>',
  ].join('');
}

function omitted(m: SequenceModel): string {
  const parts: string[] = [];
  if (m.omittedSessions > 0) parts.push(`${m.omittedSessions} more client(s)`);
  if (m.omittedSteps > 0) parts.push(`${m.omittedSteps} more step(s)`);
  return parts.length > 0 ? `Not drawn: ${parts.join(' and ')}; every step is in the table below.` : '';
}
