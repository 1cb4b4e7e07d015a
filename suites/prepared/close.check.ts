/**
 * prepared/close: when a client closes a named statement and prepares the name again with
 * other text, does the new text run wherever the pooler sends it next, and does a Describe in a
 * later transaction see it?
 *
 *   A:  Parse "<p>" SELECT pg_backend_pid() AS pid, 1 AS first_text; Bind; Describe P; Execute; Sync  -- b1
 *   O:  BEGIN; SELECT pg_backend_pid() AS pid                       -- lands on b1 and holds it
 *   A:  Close S "<p>"; Parse "" SELECT pg_backend_pid() AS pid; Bind; Describe P; Execute; Sync -- b2
 *   O:  COMMIT;  O': BEGIN; SELECT pg_backend_pid() AS pid           -- lands on b2 and holds it
 *   A:  Parse "" SELECT pg_backend_pid() AS pid; Bind; Describe P; Execute;
 *       Parse "<p>" SELECT pg_backend_pid() AS pid, 2 AS second_text; Bind; Describe P; Execute; Sync -- b1
 *   O': COMMIT;  O'': BEGIN; SELECT pg_backend_pid() AS pid          -- lands on b1 and holds it
 *   A:  Parse "" SELECT pg_backend_pid() AS pid; Bind; Describe P; Execute; Describe S "<p>"; Sync -- b2
 *   O'': DEALLOCATE "<p>" where it exists; COMMIT
 *   A:  Close S "<p>"; Sync
 *
 * Each step of A goes to whichever backend the pooler hands out, and the holders make that the
 * other one (proven by the pid each step reads). PostgreSQL keeps a named statement on the
 * backend that parsed it: a pooler that passes Close through to whatever server A has at the
 * moment leaves the old statement on b1, where the re-Parse then fails with 42P05 ("already
 * exists"); one that does not prepare it where A lands gets 26000 for the Describe. Poolers that
 * rename statements per server (PgBouncer 1.21+ `PGBOUNCER_n` with max_prepared_statements,
 * Odyssey's `odyssey_pstmt_n` with pool_reserve_prepared_statement) must forget the client's
 * name on Close and map the re-Parse to the new text; a cache keyed by the client's name alone
 * runs the old text (`stale`). Direct PostgreSQL and session pooling keep A on one backend,
 * where Close and Parse simply work.
 */
import { defineCheck, type OutcomeInfo } from '../../engine/execute/check.js';
import { readLanding } from '../../engine/judging/landing.js';
import { firstWireTrouble } from '../../engine/judging/wire-trouble.js';
import { errorText, numberOf, sqlError, stepOf, valueOf } from '../../engine/record/step-reading.js';
import { LAND_ON_A, LANDING_TAGS } from '../../engine/record/tags.js';
import { markersFor } from '../../engine/record/markers.js';
import type { Hold } from '../../engine/steering/holders.js';
import { holdBackend, letGo } from '../../engine/steering/hold-backend.js';
import { cleanOn } from '../../engine/steering/clean-on.js';
import { cleanupBlock } from '../../engine/steering/state-scenario.js';
import { wireSkipReason, type SyncAnswer } from '../../engine/session/wire-session.js';
import * as fe from '../../engine/wire/frontend.js';
import type { Discovery, Facts, Judgement, StepRecord } from '../../engine/types.js';

/**
 * The tags of this check's own steps. A's steps that the landings steer carry the landing's
 * phase (`close:A.create`), so that each landing is read against the backend it aimed at.
 */
export const CLOSE_TAGS = {
  parse: `parse:${LANDING_TAGS.create}`,
  close: `close:${LANDING_TAGS.create}`,
  reparse: `reparse:${LANDING_TAGS.create}`,
  describe: 'A.describe',
  /** A note: the result columns the Describe S answered with. */
  described: 'A.described',
  cleanup: LANDING_TAGS.cleanup,
  /** The last holder deallocates the name on the backend it holds (a pooler that passed it through). */
  holderCleanup: 'reparse:observe.cleanup',
} as const;

/** The landing phases, in order: each holds the backend of the step before A's next one. */
export const CLOSE_PHASES = ['parse:', 'close:', 'reparse:'] as const;

export const FIRST_TEXT = 'SELECT pg_backend_pid() AS pid, 1 AS first_text';
export const SECOND_TEXT = 'SELECT pg_backend_pid() AS pid, 2 AS second_text';
const PID_TEXT = 'SELECT pg_backend_pid() AS pid';

/** The columns the Describe S answered with (comma separated), as the scenario notes them. */
export const DESCRIBED = 'described';

const TRACKING =
  'PgBouncer 1.21 or later with max_prepared_statements > 0, or Odyssey with pool_reserve_prepared_statement: yes';

const OUTCOMES = {
  honoured: {
    means:
      'after Close, the re-Parse of the same name ran the new text on the backend the pooler handed out, and a Describe in a later transaction described it',
  },
  stale: {
    means:
      "the old text ran after Close and re-Parse, or a later Describe described it: the pooler's statement cache ignored the Close",
    advice: `The pooler maps the client's statement name to its old text after a Close: report it to its maintainers, and until then never reuse a statement name for other text (drivers with a statement cache name statements by their text). (${TRACKING})`,
  },
  refused: {
    means:
      'the re-Parse failed with 42P05 (the old statement was still on that backend: the Close went elsewhere) or the Describe failed with 26000 (the statement was not on the backend A landed on)',
    advice: `Named statements do not survive transaction pooling without the pooler's statement tracking: turn it on (${TRACKING}), or make the driver use unnamed statements (pgx: QueryExecModeExec; JDBC: prepareThreshold=0; node-postgres: omit \`name\`).`,
  },
  rejected: {
    means: 'the first Parse of the named statement was refused',
    advice: 'The pooler refuses named statements: use unnamed statements or the simple protocol.',
  },
  stalled: {
    means: "a step's answers did not all arrive within the bound (how long pooltest waited is in the reason)",
    advice:
      'The pooler leaves a Close, Parse or Describe unanswered: report it to its maintainers with the record, and keep clients on unnamed statements meanwhile.',
  },
  dropped: {
    means: 'the pooler closed or reset the connection during a step',
    advice:
      'The pooler drops a client that closes or describes a named statement: report it with the record, and keep clients on unnamed statements meanwhile.',
  },
} satisfies Record<string, OutcomeInfo>;

type Label = keyof typeof OUTCOMES;

export const close = defineCheck({
  id: 'prepared/close',
  title:
    'a closed named statement can be prepared again with other text, and described later, wherever its client lands',
  summary:
    'Close of a named statement, a re-Parse of the name with other text on another backend, and a Describe of it in a later transaction',
  severity: 'correctness',
  docs: [
    'https://www.postgresql.org/docs/15/protocol-flow.html#PROTOCOL-FLOW-EXT-QUERY (Close, Describe)',
    'https://www.pgbouncer.org/config.html#max_prepared_statements (since 1.21)',
    'yandex/odyssey@1.5.1:documentation/configuration.md (pool_reserve_prepared_statement)',
  ],
  outcomes: OUTCOMES,
  uses: LAND_ON_A,
  decisive: [
    { tag: CLOSE_TAGS.reparse, has: 'error' },
    { tag: CLOSE_TAGS.describe, has: 'error' },
  ],
  skipIf: (ctx) => wireSkipReason(ctx.target),
  async scenario(scn) {
    const p = markersFor(scn.ctx.runId, this.id).preparedName;
    const a = await scn.openWire('A');
    // Each use reads its pid through a Describe of the portal, so its row has column names.
    const use = (text: string): fe.FrontendMessage[] => [
      fe.parse(p, text),
      fe.bind('', p),
      fe.describe('P', ''),
      fe.execute(),
      fe.sync(),
    ];
    const pid = [fe.parse('', PID_TEXT), fe.bind('', ''), fe.describe('P', ''), fe.execute()];
    const dealloc = `IF EXISTS (SELECT 1 FROM pg_prepared_statements WHERE name = '${p}') THEN DEALLOCATE ${p}; END IF;`;
    let hold: Hold | null = null;
    try {
      const first = (await a.exchange(CLOSE_TAGS.parse, use(FIRST_TEXT))).steps[0];
      if (first?.pid == null) return;
      hold = await holdBackend(scn, CLOSE_PHASES[0], first.pid);
      const closed = (await a.exchange(CLOSE_TAGS.close, [fe.close('S', p), ...pid, fe.sync()])).steps[0];
      await letGo(hold);
      hold = null;
      if (closed?.pid == null) return;
      hold = await holdBackend(scn, CLOSE_PHASES[1], closed.pid);
      // The pid first, so that a re-Parse refused still shows the backend that refused it.
      const again = (await a.exchange(CLOSE_TAGS.reparse, [...pid, ...use(SECOND_TEXT)])).steps[0];
      await letGo(hold);
      hold = null;
      if (again?.pid == null) return;
      // The holder on the re-Parse's backend deallocates there what a pooler left of A's name.
      hold = await holdBackend(scn, CLOSE_PHASES[2], again.pid);
      const described = await a.exchange(CLOSE_TAGS.describe, [...pid, fe.describe('S', p), fe.sync()]);
      scn.note('A', CLOSE_TAGS.described, '(the columns Describe S named)', {
        facts: { [DESCRIBED]: describedColumns(described.answers[0]) },
      });
    } finally {
      scn.evidenceComplete();
      // A holder inside BEGIN can run it; a statement-strategy holder is busy in its statement,
      // and the tidy-up's visits deallocate the run's names there.
      if (hold?.session.alive && scn.discovery.holderStrategy === 'transaction')
        await hold.session.run(CLOSE_TAGS.holderCleanup, cleanupBlock(dealloc, hold.pid ?? undefined));
      await letGo(hold);
      // Statement-strategy holders cannot run it: each backend A parsed the name on is visited
      // (under statement pooling the Close goes to whichever server is free, so the name can
      // stay where it was parsed).
      if (scn.discovery.holderStrategy !== 'transaction')
        for (const pid of parsedOn(scn.steps)) await cleanOn(scn, pid, dealloc);
      // The client's own Close: a pooler that tracks statements forgets the name.
      await a.exchange(CLOSE_TAGS.cleanup, [fe.close('S', p), fe.sync()]);
    }
  },
  judge: judgeClose,
  evidence: (j) => j.reason,
});

/** The backend of A's step, the landing phase that held A's previous backend, and whether A moved. */
interface Move {
  step: string;
  from: number;
  to: number;
  /** A's previous backend was held by another client, or the record proves nobody could have it. */
  forced: boolean;
}

function moveOf(steps: readonly StepRecord[], discovery: Discovery, phase: string, from: number, to: StepRecord): Move {
  const landing = readLanding(steps, discovery, from, phase);
  const to_ = to.pid ?? -1;
  return { step: to.tag, from, to: to_, forced: to_ !== from ? landing.placed : landing.reservedBy !== null };
}

/**
 * In record order, the first thing that settles the outcome wins:
 * - a step of A without its answers: `stalled` or `dropped` (a protocol violation: inconclusive,
 *   the engine reports it);
 * - the first Parse refused with an SQLSTATE: `rejected`;
 * - the re-Parse or the Describe refused with an SQLSTATE (42P05, 26000...): `refused`;
 * - the re-Parse ran the first text, or the Describe described it: `stale`;
 * - the new text ran and was described: `honoured`, when every step of A ran on the other
 *   backend while a holder sat on the one before (or, on a backend nobody else could get, as on
 *   a direct connection): otherwise inconclusive.
 */
/** The backends A's Parse steps of the named statement ran on. */
function parsedOn(steps: readonly StepRecord[]): number[] {
  const tags: string[] = [CLOSE_TAGS.parse, CLOSE_TAGS.reparse];
  return [...new Set(steps.filter((s) => tags.includes(s.tag) && s.pid !== null).map((s) => s.pid!))];
}

export function judgeClose(steps: readonly StepRecord[], discovery: Discovery): Judgement<Label> {
  const [parse, closeStep, reparse, describe] = [
    CLOSE_TAGS.parse,
    CLOSE_TAGS.close,
    CLOSE_TAGS.reparse,
    CLOSE_TAGS.describe,
  ].map((t) => stepOf(steps, t));
  const facts: Facts = {
    parseBackend: parse?.pid ?? null,
    closeBackend: closeStep?.pid ?? null,
    reparseBackend: reparse?.pid ?? null,
    describeBackend: describe?.pid ?? null,
    reparseError: errorText(reparse),
    reparseRan: reparse ? ranText(reparse) : null,
    describeError: errorText(describe),
    described: describedText(stepOf(steps, CLOSE_TAGS.described)),
  };
  const none = (reason: string): Judgement<Label> => ({ outcome: null, facts, reason });
  const aTags = [CLOSE_TAGS.parse, CLOSE_TAGS.close, CLOSE_TAGS.reparse, CLOSE_TAGS.describe];
  const trouble = firstWireTrouble(steps, 'A', aTags);
  if (trouble)
    return trouble.label
      ? { outcome: trouble.label, facts, reason: trouble.reason }
      : { outcome: null, facts, reason: trouble.reason };
  if (!parse) return none("no record of A's first Parse");
  if (sqlError(parse))
    return { outcome: 'rejected', facts, reason: `the first Parse was refused: ${errorText(parse)}` };
  if (parse.pid === null || numberOf(parse, 'first_text') !== 1)
    return none(`A's first Parse/Execute gave no pid and first_text: ${errorText(parse) ?? 'no row'}`);
  if (!closeStep || closeStep.pid === null) return none(`A's Close gave no pid: ${errorText(closeStep) ?? 'missing'}`);
  if (sqlError(closeStep))
    return { outcome: 'refused', facts, reason: `the Close was refused: ${errorText(closeStep)}` };
  if (!reparse) return none("no record of A's re-Parse");
  if (sqlError(reparse))
    return {
      outcome: 'refused',
      facts,
      reason: `the re-Parse on backend ${reparse.pid ?? '?'} was refused: ${errorText(reparse)} (the Close ran on backend ${closeStep.pid}, the first Parse on ${parse.pid})`,
    };
  const ran = ranText(reparse);
  if (ran === 'first')
    return {
      outcome: 'stale',
      facts,
      reason: `after Close and re-Parse, backend ${reparse.pid ?? '?'} ran the first text (first_text = 1)`,
    };
  if (ran !== 'second' || reparse.pid === null) return none("A's re-Parse gave no pid and second_text");
  if (!describe) return none("no record of A's Describe");
  if (sqlError(describe))
    return {
      outcome: 'refused',
      facts,
      reason: `the Describe on backend ${describe.pid ?? '?'} was refused: ${errorText(describe)} (the re-Parse ran on ${reparse.pid})`,
    };
  const text = describedText(stepOf(steps, CLOSE_TAGS.described));
  if (text === 'first')
    return {
      outcome: 'stale',
      facts,
      reason: `the Describe on backend ${describe.pid ?? '?'} described the first text`,
    };
  if (text !== 'second' || describe.pid === null) return none("A's Describe gave no pid and no description");
  const moves = [
    moveOf(steps, discovery, CLOSE_PHASES[0], parse.pid, closeStep),
    moveOf(steps, discovery, CLOSE_PHASES[1], closeStep.pid, reparse),
    moveOf(steps, discovery, CLOSE_PHASES[2], reparse.pid, describe),
  ];
  facts.moved = moves.filter((m) => m.to !== m.from).length;
  const unforced = moves.find((m) => !m.forced);
  if (unforced)
    return none(
      unforced.to === unforced.from
        ? `${unforced.step} ran on backend ${unforced.to} again, and nothing proves no other client could have it`
        : `${unforced.step} moved from backend ${unforced.from} to ${unforced.to}, but no other client held ${unforced.from}`,
    );
  return {
    outcome: 'honoured',
    facts,
    reason:
      facts.moved === 0
        ? `A kept backend ${parse.pid}, which no other client could get: Close, re-Parse and Describe worked there`
        : `Close ran on backend ${closeStep.pid}, the new text on ${reparse.pid}, and the Describe on ${describe.pid} described it`,
  };
}

/** Which text the step's row came from: `second_text` = 2 or `first_text` = 1. */
function ranText(step: StepRecord): 'first' | 'second' | null {
  if (numberOf(step, 'second_text') === 2) return 'second';
  if (numberOf(step, 'first_text') === 1) return 'first';
  return null;
}

/** Which text a Describe S described, by the result column it names. */
function describedText(step: StepRecord | undefined): 'first' | 'second' | null {
  const v = valueOf(step, DESCRIBED);
  if (typeof v !== 'string') return null;
  const cols = v.split(',');
  if (cols.includes('second_text')) return 'second';
  if (cols.includes('first_text')) return 'first';
  return null;
}

/** The column names of the last RowDescription in an answer (a Describe S's), comma separated. */
function describedColumns(answer: SyncAnswer | undefined): string | null {
  const rows = (answer?.items ?? []).filter((i) => i.kind === 'RowDescription');
  const last = rows.at(-1);
  return last && last.kind === 'RowDescription' ? last.columns.join(',') : null;
}
