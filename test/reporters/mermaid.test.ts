/**
 * The Mermaid diagrams in the Markdown report: one participant per client and backend, every
 * drawn step an arrow to its backend, the crossing highlighted, and report text unable to end
 * a statement, start a comment or close the code fence.
 */
import { describe, expect, test } from 'vitest';
import { mermaidText, renderMermaid } from '../../reporters/mermaid.js';
import { backendsOf, findCrossings, sequenceModel } from '../../reporters/sequence-model.js';
import { recordedReport } from '../support/recorded-report.js';
import { pgbouncerReport } from './samples.js';

const check = (id: string) => structuredClone(pgbouncerReport().checks.find((c) => c.id === id)!);

describe('Mermaid sequence diagrams', () => {
  test('clients and backends are participants, and each step goes to the backend it ran on', () => {
    const c = check('session/set-leak');
    const text = renderMermaid(c);
    const lines = text.split('\n');
    expect(lines[0]).toBe('sequenceDiagram');
    expect(lines).toContain('  participant c0 as A');
    expect(lines).toContain('  participant c1 as O1');
    const create = c.steps.find((s) => s.tag === 'A.create')!;
    expect(lines).toContain(`  participant b0 as pid ${create.pid}`);
    expect(text).toContain(`  c0->>b0: ${create.seq} A.create\n`);
    // The SQL that created the state is in a note, folded, in full.
    expect(text).toMatch(
      /Note over b0: state created here: SELECT<br>pg_backend_pid\(\) AS pid#59; SET<br>statement_timeout =/,
    );
    expect(text).toContain('Note over b0: state created here');
  });

  test('the crossing is where another client ran on the create backend; a landing without state is told apart', () => {
    const leak = check('session/set-leak');
    expect(findCrossings(leak)).toEqual([
      expect.objectContaining({ fromSession: 'A', toSession: 'O1', reached: true }),
    ]);
    // set-local: O1 lands on A's backend after A's transaction ended, and SET LOCAL's state ended
    // with it (scoped, on any pooler): a landing, not a crossing.
    const scoped = check('session/set-local');
    expect(scoped.outcome).toBe('scoped');
    expect(findCrossings(scoped)).toEqual([expect.objectContaining({ reached: false })]);
    expect(renderMermaid(scoped)).toContain('rect rgb(219, 233, 255)');
    expect(renderMermaid(scoped)).not.toContain('rect rgb(255, 215, 213)');
    // Control: move the observer off A's backend and there is nothing to highlight.
    for (const s of leak.steps) if (s.tag === 'observe.take') s.pid = 1;
    expect(findCrossings(leak)).toEqual([]);
    expect(renderMermaid(leak)).not.toContain('rect ');
  });

  test('report text cannot break out of a message or the fence', () => {
    const hostile = 'x; end\n%% comment\n```\n#59; <script>`';
    const safe = mermaidText(hostile);
    expect(safe.replace(/#\d+;/g, '')).not.toMatch(/[;\n%`<>#]/);
    expect(safe).toContain('#59;');
    const c = check('session/set-leak');
    c.steps[0]!.sql = hostile;
    const text = renderMermaid(c);
    expect(text).not.toContain('```');
    expect(text.split('\n').every((l) => /^( {2}|sequenceDiagram)/.test(l))).toBe(true);
  });
});

describe('the decisive step, in Mermaid as in the SVG (recorded catalogue run)', () => {
  const report = recordedReport();
  const byId = (id: string) => report.checks.find((c) => c.id === id)!;

  test('every check with a crossing has one highlighted block, around its decisive step', () => {
    const crossed = report.checks.filter((c) => findCrossings(c).length > 0);
    expect(crossed.length).toBeGreaterThanOrEqual(10);
    for (const c of crossed) {
      const text = renderMermaid(c);
      const blocks = text.match(/ {2}rect [\s\S]*?\n {2}end/g) ?? [];
      expect(blocks.length, c.id).toBe(1);
      const decisive = sequenceModel(c).decisive!;
      const step = c.steps.find((s) => s.seq === decisive.seq)!;
      expect(blocks[0], c.id).toContain(`: ${decisive.seq} ${step.tag.replace(/^.*:/, '')}\n`);
      expect(blocks[0], c.id).toContain('Note over');
    }
  });

  test("prepared/protocol-named: O1's 42P05 is drawn on A's backend, inside O1's transaction there", () => {
    const c = byId('prepared/protocol-named');
    const prepare = c.steps.find((s) => s.tag === 'observe.prepare')!;
    expect(prepare.pid).toBeNull();
    const create = c.steps.find((s) => s.tag === 'A.create')!;
    expect(backendsOf(c.steps).get(prepare.seq)).toBe(create.pid);
    const text = renderMermaid(c);
    expect(text).toContain(`  participant b0 as pid ${create.pid}`);
    expect(text).toMatch(new RegExp(`rect rgb\\(255, 215, 213\\)\\n {4}c1-\\)b0: ${prepare.seq} observe\\.prepare`));
    expect(text).toMatch(/decisive: O1 got 42P05/);
    // Control: A's readback read no pid outside a transaction, and stays on "pid not read".
    expect(text).toMatch(/c0->>bx: \d+ A\.readback/);
  });

  test('notify/listen: the block marks the step where the notification reached O1', () => {
    const c = byId('notify/listen');
    expect(c.outcome).toBe('misrouted');
    const got = c.steps.find((s) => s.notifications.length > 0)!;
    expect(got.session).toBe('O1');
    const text = renderMermaid(c);
    expect(text).toMatch(
      new RegExp(`rect rgb\\(255, 215, 213\\)\\n {4}c\\d-\\)b0: ${got.seq} ${got.tag.replace('.', '\\.')}`),
    );
    expect(text).toMatch(/decisive: O1 received the(<br>| )notification/);
  });
});
