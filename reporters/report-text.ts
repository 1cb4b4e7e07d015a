/**
 * Short phrases every report format uses to name what was tested, so the terminal, JUnit,
 * Markdown and diff views describe a target and a pooler in the same words.
 */
import type { DiffSide } from './report-diff.js';
import { describeTarget } from '../engine/target/target.js';
import type { PublicTarget, Report } from '../engine/types.js';

/** `user@host:port/database`, IPv6 hosts in brackets (a public target never holds a password). */
export function targetText(t: PublicTarget): string {
  return describeTarget(t);
}

/** `PgBouncer 1.18.0`, or null when discovery could not tell. */
export function poolerName(p: Report['discovery']['pooler']): string | null {
  return p ? `${p.name} ${p.version ?? ''}`.trim() : null;
}

/**
 * The pool size with how it was counted (Discovery.poolCount), in every report that shows it:
 * `2 (2 held at once, then the next client queued)`, or, where other clients' traffic was
 * counted in, `4 (an upper bound: pooltest held 2 at once and 2 more were busy with other
 * clients when the next client queued)`: a size above the configured pool is explained where it
 * is read, not only in the JSON. A report written before the count was recorded gives the number.
 */
export function poolText(d: Pick<Report['discovery'], 'poolSize' | 'poolBound' | 'poolCount'>): string {
  if (d.poolSize === null) return `no limit up to ${d.poolBound}`;
  const c = d.poolCount;
  if (!c) return String(d.poolSize);
  const end =
    c.end === 'refused'
      ? 'the next client was refused'
      : c.end === 'queued'
        ? 'the next client queued'
        : 'as many as the first count: counted no further';
  if (c.busyElsewhere > 0)
    return `${d.poolSize} (an upper bound: pooltest held ${c.held} at once and ${c.busyElsewhere} more were busy with other clients when ${end})`;
  return c.end === 'as-before'
    ? `${d.poolSize} (at least: ${c.held} held at once, ${end})`
    : `${d.poolSize} (${c.held} held at once, then ${end})`;
}

/** `PgBouncer 1.18.0, transaction mode, pool 2 (...)`: who answered, as discovery saw it. */
export function poolerText(d: Report['discovery']): string {
  const who = poolerName(d.pooler) ?? 'pooler not identified';
  const pool = d.poolSize !== null ? `pool ${poolText(d)}` : `no pool limit up to ${d.poolBound}`;
  return d.mode === 'direct'
    ? `${who === 'pooler not identified' ? 'no pooler seen' : who}, direct`
    : `${who}, ${d.mode} mode, ${pool}`;
}

/** `PgBouncer 1.18.0, transaction mode` or `direct`: one side of a diff. */
export function sideWhat(s: Pick<DiffSide, 'mode' | 'pooler'>): string {
  return s.mode === 'direct' ? 'direct' : `${s.pooler ?? 'pooler not identified'}, ${s.mode} mode`;
}
