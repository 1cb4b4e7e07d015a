/**
 * Visiting every backend of the pool, for the sweep and the tidy-up after each check. Holders
 * take as many backends at once as the pool is wide, each running the same statements on the
 * backend it got; then every backend the caller says it touched and that still exists must
 * have been visited, or another round goes looking for it (other clients may have held it).
 */
import { dismiss, take, type Hold } from './steering/holders.js';
import type { Scenario } from './steering/scenario.js';
import { valueOf } from './judging/record.js';
import type { StepRecord } from './types.js';

export interface Visits {
  /** Backends a visit ran on. */
  visited: number[];
  /** Backends in `touched` still alive that no round reached. */
  unvisited: number[];
  /** The recorded visits, tagged `tag`, in order. */
  steps: StepRecord[];
}

/** Rounds at most; one is enough unless a touched backend was busy elsewhere. */
const ROUNDS = 3;

export interface VisitOptions {
  /** How long a statement-strategy holder keeps its backend: long enough for the next to take another. */
  holdMs: number;
  /** How long a visitor may queue for a backend (other clients may be using them all). */
  waitMs: number;
}

export async function visitBackends(scn: Scenario, tag: string, statements: string[], touched: readonly number[], opts: VisitOptions): Promise<Visits> {
  const d = scn.discovery;
  const width = d.mode === 'direct' ? 1 : (d.poolSize ?? d.poolBound);
  const visited = new Set<number>();
  let unvisited: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    await visitRound(scn, `${tag}${round}.`, tag, width, statements, opts);
    for (const step of scn.steps) if (step.tag === tag && step.pid !== null) visited.add(step.pid);
    unvisited = await stillAlive(scn, touched.filter((p) => !visited.has(p)));
    if (unvisited.length === 0) break;
  }
  return { visited: [...visited].sort((a, b) => a - b), unvisited, steps: scn.steps.filter((s) => s.tag === tag) };
}

async function visitRound(scn: Scenario, label: string, tag: string, width: number, statements: string[], opts: VisitOptions): Promise<void> {
  const holds: Hold[] = [];
  for (let i = 1; i <= width; i++) {
    const s = await scn.tryOpen(`${label}${i}`, `${tag}.connect`, scn.ctx.bounds.connectMs);
    if (!s) break;
    const hold = await take(scn, s, tag, { statements, releaseBy: 'wait', holdMs: opts.holdMs, waitMs: opts.waitMs });
    if (hold.waited) break;
    holds.push(hold);
  }
  // Disconnect, not just commit: under session pooling a connected holder keeps its backend.
  await dismiss(holds);
}

/** Which of `pids` still exist (pg_stat_activity shows every backend's pid to every login). */
async function stillAlive(scn: Scenario, pids: number[]): Promise<number[]> {
  if (pids.length === 0) return [];
  const s = await scn.open(`alive${scn.steps.length}`);
  const step = await s.run('visit.alive', `SELECT coalesce(array_agg(pid), '{}') AS alive FROM pg_stat_activity WHERE pid = ANY(ARRAY[${pids.join(', ')}]::int[])`);
  await s.close();
  const alive = valueOf(step, 'alive');
  // Unreadable: count them all as alive, so they are reported rather than silently skipped.
  return Array.isArray(alive) ? alive.map(Number) : pids;
}
