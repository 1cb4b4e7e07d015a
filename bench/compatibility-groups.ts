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

interface CompatGroup {
  id: CompatGroupId;
  title: string;
  /** The column every cell of this section is compared with (bold when different). */
  reference: string;
  /** What a reader should know first: how this pooler differs from PgBouncer 1.18, from the runs. */
  summary: string;
}

const PGB_118 = 'PgBouncer 1.18 transaction';

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
      'no `application_name` is no longer shown the previous client\'s value (fixed in 1.22, pgbouncer/pgbouncer#999), so',
      '`session/tracked-parameter` is `tracked`. With `track_extra_parameters` including `search_path` and a PostgreSQL 18 server',
      '(which reports search_path), search_path is tracked too: the default of 1.26.',
    ].join(' '),
  },
  {
    id: 'odyssey-1.5',
    title: 'Odyssey 1.5.1 (built from the release tarball)',
    reference: PGB_118,
    summary: [
      'Compared with PgBouncer 1.18 in transaction mode. Odyssey resets the server connection when a client detaches from it (at',
      'every transaction end in transaction pooling), so session state is lost instead of leaked, and it keeps protocol-level',
      'prepared statements per client (`pool_reserve_prepared_statement`, on by default in 1.5.1). With that on, its',
      '`pool_discard` becomes a "smart discard" that keeps prepared statements; with `pool_discard no` the state stays on the',
      'server and leaks as on PgBouncer; with `pool_reserve_prepared_statement no` the full DISCARD ALL runs and named protocol',
      'statements fail.',
    ].join(' '),
  },
  {
    id: 'pgagroal-1.6',
    title: 'pgagroal 1.6.0 (built from the release tarball)',
    reference: PGB_118,
    summary: [
      'Compared with PgBouncer 1.18 in transaction mode. The transaction pipeline runs no reset between clients (doc/PIPELINES.md),',
      'like PgBouncer; the session pipeline gives each client its own server connection and runs DISCARD ALL when it leaves.',
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
          differs: c.verdict !== null && first !== undefined && first.verdict !== null && c.outcome !== first.outcome,
        })),
      };
    })
    // A check none of these columns ran (or only skipped) says nothing here.
    .filter((r) => r.cells.some((c) => c.verdict !== null));
  return { ...m, columns: index.map((i) => m.columns[i]!), rows };
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
      for (let i = 1; i < sub.columns.length; i++) {
        const differing = sub.rows.filter((r) => r.cells[i]!.differs).map((r) => `\`${r.id}\` ${r.cells[i]!.outcome}`);
        parts.push(
          `- **${sub.columns[i]!.name}** differs from ${g.reference} in ${differing.length} check(s)${differing.length > 0 ? `: ${differing.join(', ')}` : ''}.`,
        );
      }
      parts.push('');
    }
    const notes = targets.flatMap((t) =>
      Object.entries(t.footnotes ?? {}).map(([id, text]) => `- ${t.name}, \`${id}\`: ${text}`),
    );
    parts.push(renderMatrixMarkdown(sub, g.title));
    if (notes.length > 0) parts.push('Cells that follow from the fixture\'s configuration:', '', ...notes, '');
  }
  return parts.join('\n');
}
