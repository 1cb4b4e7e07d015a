/**
 * docs/compatibility.md in sections, one per pooler and version: each a table of that group's
 * columns after a reference column, what differs from the reference in words (written from the
 * runs, see GROUPS), the list of differing checks per column (computed from the matrix, so it
 * cannot drift from the table) and footnotes where a cell follows from the fixture's
 * configuration. The JSON and the HTML page stay one matrix of every column.
 */
import { renderMatrixMarkdown } from '../reporters/matrix-text.js';
import type { Matrix } from '../reporters/matrix.js';
import { COMPAT_TARGETS, type CompatGroupId } from './compatibility-targets.js';
import { cellNotes, MEASURED_CHECKS } from './compatibility-rules.js';

interface CompatGroup {
  id: CompatGroupId;
  title: string;
  /** The column every cell of this section is compared with (bold when different). */
  reference: string;
  /** What a reader should know first: how this pooler differs from PgBouncer 1.18, from the runs. */
  summary: string;
}

const PGB_118 = 'PgBouncer 1.18 transaction';
const PGB_118_SESSION = 'PgBouncer 1.18 session';

export const GROUPS: readonly CompatGroup[] = [
  {
    id: 'debian',
    title: 'PostgreSQL, PgBouncer 1.18 and pgpool-II 4.3 (Debian 12 packages)',
    reference: 'PostgreSQL 15, direct',
    summary:
      'The reference: PostgreSQL 15 and 18 without a pooler, and the poolers Debian 12 packages, in their modes and variant configurations.',
  },
  {
    id: 'pgbouncer-1.25',
    title: 'PgBouncer 1.25.2 (built from the release tarball)',
    reference: PGB_118,
    summary: [
      'Compared with PgBouncer 1.18 in transaction mode. Still no reset between clients in transaction pooling, so session state',
      'leaks as on 1.18; what changed is that protocol-level named prepared statements follow the client (tracked since 1.21, on by',
      'default since 1.24 with `max_prepared_statements = 200`; 0 turns it off and they fail as on 1.18), and a client that sends',
      "no `application_name` is no longer shown the previous client's value (fixed in 1.22, pgbouncer/pgbouncer#999), so",
      '`session/tracked-parameter` is `tracked`. With `track_extra_parameters` including `search_path` and a PostgreSQL 18 server',
      '(which reports search_path), search_path is tracked too: the default of 1.26. With the defaults in front of PostgreSQL 18,',
      'search_path is one more reported parameter that 1.25.2 does not track, so `session/tracked-parameter` leaks there.',
    ].join(' '),
  },
  {
    id: 'odyssey-1.5',
    title: 'Odyssey 1.5.1 (built from the release tarball)',
    reference: PGB_118,
    summary: [
      'Compared with PgBouncer 1.18 in transaction mode. With its defaults Odyssey resets the server connection whenever a client',
      'detaches from it (in transaction pooling, at every transaction end), so session state is lost instead of leaked, a',
      "client's own DISCARD ALL finds nothing left to reset, and protocol-level named prepared statements follow the client",
      '(`pool_reserve_prepared_statement`, on by default). Reserving prepared statements turns `pool_discard` into a "smart',
      'discard" that keeps prepared statements: an SQL PREPARE reaches the next client, and so did the state a client left',
      'behind when it disconnected (`session/reset-on-disconnect` leaked). `pool_discard no` leaves the state on the server: it',
      'leaks as on PgBouncer 1.18, and named protocol statements still work. `pool_reserve_prepared_statement no` runs the full',
      'DISCARD ALL: everything is lost or reset, and named protocol statements fail as on 1.18. In session pooling it gives',
      'the same outcomes as PgBouncer in session pooling. In front of PostgreSQL 18, which reports search_path, Odyssey replays',
      "a client's search_path at the start of each later transaction quoted as one string (one schema named after the whole",
      'list), so the client loses it there too: `lost`, for another reason (see the note).',
    ].join(' '),
  },
  {
    id: 'pgagroal-1.6',
    title: 'pgagroal 1.6.0 (built from the release tarball)',
    reference: PGB_118,
    summary: [
      'Compared with PgBouncer 1.18 in transaction mode. Discovery names pgagroal by its refusal of a protocol 2.0 startup',
      '(with a stray byte after it: a wire finding in the report). In the transaction pipeline every session state a client',
      'leaves (SET, roles, temp tables, advisory locks, prepared statements, held cursors, lastval) stays on the server',
      'connection for the next client, as on PgBouncer 1.18, with no parameter tracked (not even application_name), and',
      "a client's DISCARD ALL runs on whichever connection its transaction gets. Where it differs from 1.18: a cancel request",
      'is routed with the key of the connection the client authenticated on, so it reaches the query only when that is the',
      'same backend, and a login beyond the pool is refused with a malformed 53300 instead of queued, which leaves the',
      'capacity checks inconclusive with that reason. The session pipeline gives the outcomes of PgBouncer in session',
      'pooling, but holds a login until a server connection is free.',
    ].join(' '),
  },
];

/** The columns of `m` named `names`, in that order, with `differs` recomputed against the first. */
export function subMatrix(m: Matrix, names: readonly string[]): Matrix {
  const index = names.map((n) => m.columns.findIndex((c) => c.name === n)).filter((i) => i >= 0);
  const rows = m.rows
    .map((r) => {
      const cells = index.map((i) => r.cells[i]!);
      const first = cells[0];
      return {
        ...r,
        cells: cells.map((c) => ({
          ...c,
          differs:
            c.verdict !== null &&
            first !== undefined &&
            first.verdict !== null &&
            (c.seen ?? [c.outcome]).some((o) => o !== first.outcome),
        })),
      };
    })
    // A check none of these columns ran (or only skipped) says nothing here.
    .filter((r) => r.cells.some((c) => c.verdict !== null));
  return { ...m, columns: index.map((i) => m.columns[i]!), rows };
}

/** `check outcome` for each check where column `name` concluded otherwise than column `ref`. */
function differingChecks(m: Matrix, ref: string, name: string): string[] {
  const r = m.columns.findIndex((c) => c.name === ref);
  const i = m.columns.findIndex((c) => c.name === name);
  if (r < 0 || i < 0) return [];
  return m.rows
    .filter((row) => !MEASURED_CHECKS.has(row.id))
    .filter((row) => row.cells[i]!.outcome !== null && row.cells[r]!.outcome !== null)
    .filter((row) => (row.cells[i]!.seen ?? [row.cells[i]!.outcome]).some((o) => o !== row.cells[r]!.outcome))
    .map((row) => {
      const c = row.cells[i]!;
      return `\`${row.id}\` ${c.seen ? c.seen.join(' | ') : c.outcome} (${row.cells[r]!.outcome} there)`;
    });
}

/** The Markdown of every section that has a column in `m`. */
export function renderGroups(m: Matrix): string {
  const parts: string[] = [];
  for (const g of GROUPS) {
    const targets = COMPAT_TARGETS.filter((t) => t.group === g.id && m.columns.some((c) => c.name === t.name));
    if (targets.length === 0) continue;
    const names = g.id === 'debian' ? targets.map((t) => t.name) : [g.reference, ...targets.map((t) => t.name)];
    const sub = subMatrix(m, names);
    parts.push(`## ${g.title}`, '', g.summary, '');
    if (g.id !== 'debian') {
      for (const t of targets) {
        // Session-pooling columns are compared in words with 1.18's session pooling: against
        // transaction pooling every session difference would be listed, which says nothing new.
        const ref = t.stack.endsWith('-session') ? PGB_118_SESSION : g.reference;
        const differing = differingChecks(m, ref, t.name);
        // A cell this fixture cannot conclude is no difference, but the reader comparing must know it.
        const open = Object.keys(t.inconclusive ?? {}).map((id) => `\`${id}\``);
        parts.push(
          `- **${t.name}** differs from ${ref} in ${differing.length} check(s)${differing.length > 0 ? `: ${differing.join(', ')}` : ''}.${open.length > 0 ? ` Not concluded on this fixture (see the notes): ${open.join(', ')}.` : ''}`,
        );
      }
      parts.push('');
    }
    const notes = targets.flatMap((t) => [
      ...cellNotes(t, m).map(([id, text]) => `- ${t.name}, \`${id}\`: ${text}`),
      ...(t.sweep ? [`- ${t.name}, the sweep: ${t.sweep.why}`] : []),
    ]);
    parts.push(renderMatrixMarkdown(sub, g.title));
    if (notes.length > 0)
      parts.push(
        "Notes on cells that follow from the fixture's configuration, vary from run to run or cannot conclude there:",
        '',
        ...notes,
        '',
      );
  }
  return parts.join('\n');
}
