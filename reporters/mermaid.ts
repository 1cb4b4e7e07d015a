/**
 * A check's recorded steps as a Mermaid `sequenceDiagram` (GitHub renders it in Markdown),
 * drawn from the same model as the HTML report's SVG (reporters/sequence-model.ts): clients
 * and backends as participants, a step as an arrow labelled with its number and tag, the
 * answer as a short return arrow, and the decisive step in a highlighted `rect` with a note
 * that says in full what happened there.
 *
 * Narrow on purpose: GitHub scales a wide diagram down to the comment's width, so long labels
 * between participants made every diagram unreadably small. Messages carry only the step and
 * its tag; the SQL that created the state and the decisive answer go into notes folded onto
 * short lines; pooltest's own `run` notes and cleanup steps are left to the HTML report.
 *
 * Mermaid has its own syntax inside message text: `;` and a line break end a statement, `#`
 * starts an entity, `%%` a comment, and a backtick fence would end the code block. So every
 * character outside a small safe set is written as a Mermaid entity (`#59;`), and participant
 * names are generated identifiers with the real label after `as`. The only markup added is
 * `<br>` between folded lines.
 */
import type { CheckResult, StepRecord } from '../engine/types.js';
import { clip } from './html.js';
import { isCleanupWork, withoutPhase } from '../engine/record/tags.js';
import { sessionRole } from './diagram-legend.js';
import { fold } from './sequence-svg.js';
import { sequenceModel, type DiagramCheck } from './sequence-model.js';

/** Bounds for GitHub's renderer: a few lifelines and a couple of dozen arrows stay legible. */
const LIMITS = { lanes: 6, arrows: 24 } as const;
const TEXT = 90;
/** Answers on return arrows; the decisive one is written out in its note. */
const ANSWER = 28;
/** Characters per line of a note. */
const NOTE = 30;

/** Text safe inside a Mermaid message, note or participant label. */
export function mermaidText(text: string, max = TEXT): string {
  // Entities only where needed: Mermaid sizes a message by its source text, so `#34;` for each
  // quote made diagrams twice as wide as their words.
  return clip(text, max).replace(/[^A-Za-z0-9 _.,=()*+/'"[\]{}:?!@$|~^-]/g, (c) => `#${c.codePointAt(0)};`);
}

/** `text` in full, folded onto lines of {@link NOTE} characters joined by `<br>`. */
function noteText(text: string): string {
  return fold(text, NOTE)
    .map((l) => mermaidText(l, NOTE + 1))
    .join('<br>');
}

/** The steps a Markdown diagram draws: not pooltest's own notes, not the cleanup. */
function drawn(check: DiagramCheck): DiagramCheck {
  return { ...check, steps: check.steps.filter((s) => s.session !== 'run' && !isCleanupWork(s.tag)) };
}

/** The Mermaid source (without the fence), or an empty string when nothing was recorded. */
export function renderMermaid(check: Pick<CheckResult, 'steps' | 'outcome' | 'facts'> & { id?: string }): string {
  const shown = drawn(check);
  const m = sequenceModel(shown, LIMITS);
  if (m.arrows.length === 0) return '';
  const client = (i: number): string => `c${i}`;
  const backend = (j: number): string => (j === -1 ? 'bx' : `b${j}`);
  const lines = ['sequenceDiagram'];
  m.lanes.forEach((l, i) => lines.push(`  participant ${client(i)} as ${mermaidText(l)}`));
  m.backends.forEach((pid, j) => lines.push(`  participant ${backend(j)} as ${mermaidText(`pid ${pid}`)}`));
  if (m.arrows.some((a) => a.backend === -1)) lines.push(`  participant bx as ${mermaidText('pid not read')}`);
  for (const a of m.arrows) {
    const from = client(a.lane);
    const to = backend(a.backend);
    const arrowHead = a.inferred ? '-)' : '->>';
    const body = [
      `  ${from}${arrowHead}${to}: ${mermaidText(`${a.step.seq} ${withoutPhase(a.step.tag)}`)}`,
      `  ${to}-->>${from}: ${mermaidText(shortAnswer(a.step), ANSWER)}`,
    ];
    if (a.creates) body.push(`  Note over ${to}: ${noteText(`state created here: ${a.step.sql}`)}`);
    if (a.decisive) {
      const d = m.decisive!;
      lines.push(
        `  rect ${d.reached ? 'rgb(255, 215, 213)' : 'rgb(219, 233, 255)'}`,
        ...body.map((l) => `  ${l}`),
        `    Note over ${from},${to}: ${noteText(`decisive: ${d.text}`)}`,
        '  end',
      );
    } else if (a.crossing) {
      const c = a.crossing;
      lines.push(
        ...body,
        `  Note over ${from},${to}: ${noteText(`${c.toSession} on ${c.fromSession}'s backend ${c.backend}`)}`,
      );
    } else {
      lines.push(...body);
    }
  }
  const left = check.steps.length - shown.steps.length;
  const more = [
    m.omittedSessions > 0 ? `${m.omittedSessions} more client(s)` : '',
    m.omittedSteps + left > 0 ? `${m.omittedSteps + left} more step(s) (cleanup and notes: see the HTML report)` : '',
  ].filter(Boolean);
  if (more.length > 0) lines.push(`  Note over ${client(0)}: ${noteText(`not drawn: ${more.join(' and ')}`)}`);
  return lines.join('\n');
}

/** What came back, in a few words (`pid=15982, seen=3419007ms`, `ERROR 42P05`): the step table has it all. */
function shortAnswer(s: StepRecord): string {
  if (s.error) return `ERROR ${s.error.code ?? s.error.message}`;
  if (s.timedOut) return 'no answer (waited)';
  const values = s.results
    .flatMap((rows) => (rows[0] ? Object.entries(rows[0]) : []))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const notes = [...s.notices.map((n) => n.severity), ...s.notifications.map(() => 'NOTIFY')];
  return [...values, ...notes].join(', ') || 'ok';
}

/** One line under the diagram: what each of its lifelines is. */
export function mermaidLegend(check: Pick<CheckResult, 'steps' | 'outcome' | 'facts'> & { id?: string }): string {
  const m = sequenceModel(drawn(check), LIMITS);
  if (m.arrows.length === 0) return '';
  const lanes = m.lanes.map((l) => `${l}: ${sessionRole(l)}`);
  const marks = [
    'pid N: a backend',
    ...(m.arrows.some((a) => a.backend === -1) ? ['pid not read: steps that did not read their backend'] : []),
    ...(m.arrows.some((a) => a.inferred) ? ['open arrow: ran inside the transaction its client had open there'] : []),
    ...(m.decisive ? ['shaded: the decisive step (red: it breaks an application)'] : []),
  ];
  return [...lanes, ...marks].join('; ');
}
