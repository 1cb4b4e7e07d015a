/**
 * A check's recorded steps as a Mermaid `sequenceDiagram` (GitHub renders it in Markdown),
 * drawn from the same model as the HTML report's SVG (reporters/sequence-model.ts): clients
 * and backends as participants, a step as an arrow with its tag and SQL, the answer as the
 * return arrow, and the crossing in a highlighted `rect` with a note.
 *
 * Mermaid has its own syntax inside message text: `;` and a line break end a statement, `#`
 * starts an entity, `%%` a comment, and a backtick fence would end the code block. So every
 * character outside a small safe set is written as a Mermaid entity (`#59;`), and participant
 * names are generated identifiers with the real label after `as`.
 */
import type { CheckResult } from '../engine/types.js';
import { clip } from './html.js';
import { sequenceModel } from './sequence-model.js';

/** Bounds for GitHub's renderer: a few dozen arrows and short labels stay legible. */
const LIMITS = { lanes: 8, arrows: 24 } as const;
const TEXT = 90;

/** Text safe inside a Mermaid message, note or participant label. */
export function mermaidText(text: string): string {
  return clip(text, TEXT).replace(/[^A-Za-z0-9 _.,=()*+/'-]/g, (c) => `#${c.codePointAt(0)};`);
}

/** The Mermaid source (without the fence), or an empty string when nothing was recorded. */
export function renderMermaid(check: Pick<CheckResult, 'steps' | 'outcome' | 'facts'>): string {
  const m = sequenceModel(check, LIMITS);
  if (m.arrows.length === 0) return '';
  const client = (i: number): string => `c${i}`;
  const backend = (j: number): string => (j === -1 ? 'bx' : `b${j}`);
  const lines = ['sequenceDiagram'];
  m.lanes.forEach((l, i) => lines.push(`  participant ${client(i)} as ${mermaidText(l)}`));
  m.backends.forEach((pid, j) => lines.push(`  participant ${backend(j)} as ${mermaidText(`backend ${pid}`)}`));
  if (m.arrows.some((a) => a.backend === -1)) lines.push(`  participant bx as ${mermaidText('pid not read')}`);
  for (const a of m.arrows) {
    const from = client(a.lane);
    const to = backend(a.backend);
    const body = [
      `  ${from}->>${to}: ${mermaidText(`${a.step.seq} ${a.step.tag}: ${a.step.sql}`)}`,
      `  ${to}-->>${from}: ${mermaidText(a.answer)}`,
    ];
    if (a.creates) body.push(`  Note right of ${to}: ${mermaidText('state created here')}`);
    if (a.crossing) {
      const c = a.crossing;
      const what = c.reached
        ? `crossing: ${c.toSession} got ${c.fromSession}'s backend ${c.backend} and saw its state`
        : `${c.toSession} landed on ${c.fromSession}'s backend ${c.backend}`;
      lines.push(
        `  rect ${c.reached ? 'rgb(255, 215, 213)' : 'rgb(219, 233, 255)'}`,
        ...body.map((l) => `  ${l}`),
        `    Note over ${from},${to}: ${mermaidText(what)}`,
        '  end',
      );
    } else {
      lines.push(...body);
    }
  }
  const more = [
    m.omittedSessions > 0 ? `${m.omittedSessions} more client(s)` : '',
    m.omittedSteps > 0 ? `${m.omittedSteps} more step(s)` : '',
  ].filter(Boolean);
  if (more.length > 0) lines.push(`  Note over ${client(0)}: ${mermaidText(`not drawn: ${more.join(' and ')}`)}`);
  return lines.join('\n');
}
