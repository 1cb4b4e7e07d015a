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

/** `PgBouncer 1.18.0, transaction mode, pool 2`: who answered, as discovery saw it. */
export function poolerText(d: Report['discovery']): string {
  const who = poolerName(d.pooler) ?? 'pooler not identified';
  const pool = d.poolSize !== null ? `pool ${d.poolSize}` : `no pool limit up to ${d.poolBound}`;
  return d.mode === 'direct'
    ? `${who === 'pooler not identified' ? 'no pooler seen' : who}, direct`
    : `${who}, ${d.mode} mode, ${pool}`;
}

/** `PgBouncer 1.18.0, transaction mode` or `direct`: one side of a diff. */
export function sideWhat(s: Pick<DiffSide, 'mode' | 'pooler'>): string {
  return s.mode === 'direct' ? 'direct' : `${s.pooler ?? 'pooler not identified'}, ${s.mode} mode`;
}
