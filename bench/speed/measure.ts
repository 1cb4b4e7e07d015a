/**
 * The benchmark's three measurements of one target, each taken the way its figure is meant:
 * - the floor: a fresh Node process that starts Vitest and sends one query (floor-main.ts);
 * - the catalogue as a new user runs it: a fresh `pooltest` process (CLI), wall time;
 * - the catalogue in process, through `run()`, for the breakdown: discovery, the runner
 *   (Vitest start and stop, loading each suite file, the tidy-up after each check), each
 *   check, and the sweep.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../runner/run.js';
import type { Report } from '../../engine/types.js';
import type { SequentialWire } from './round-trips.js';

/** Where a measurement reads its round trips: the condition's wire and its delay each way. */
export interface WireGauge {
  wire: SequentialWire;
  delayMs: number;
}

/** Round trips on `g`'s wire so far: read at the moment it is called, as a meter. */
function tripsNow(g: WireGauge): number {
  return g.wire.roundTrips(g.delayMs, Date.now());
}

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Spawns `node args...`, resolves with the wall time and exit code; bounded. */
export function timeNode(
  args: string[],
  boundMs = 180_000,
): Promise<{ ms: number; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const t = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - t, code, stderr });
    });
  });
}

/** Node + Vitest + one query through `url`, in a fresh process. */
export async function floorMs(url: string): Promise<number> {
  const r = await timeNode([path.join(DIST, 'bench', 'speed', 'floor-main.js'), url]);
  if (r.code !== 0) throw new Error(`the floor probe failed (exit ${r.code}): ${r.stderr.slice(0, 400)}`);
  return r.ms;
}

export interface CliRun {
  ms: number;
  /** Sequential round trips of the whole process (0 on loopback: nothing to count). */
  roundTrips: number;
  report: Report;
}

/** `pooltest --target ... --direct ...` in a fresh process, with its JSON report; `only`: `--only` (ids or areas). */
export async function cliRun(
  target: string,
  direct: string,
  gauge: WireGauge,
  only: readonly string[] = [],
): Promise<CliRun> {
  const from = tripsNow(gauge);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pooltest-bench-cli-'));
  try {
    const json = path.join(dir, 'report.json');
    const r = await timeNode([
      path.join(DIST, 'cli', 'main.js'),
      '--target',
      target,
      '--direct',
      direct,
      '--quiet',
      '--no-store',
      '--no-color',
      '--json',
      json,
      ...(only.length > 0 ? ['--only', only.join(',')] : []),
    ]);
    if (r.code !== 0 && r.code !== 1) throw new Error(`pooltest exited ${r.code}: ${r.stderr.slice(0, 400)}`);
    return { ms: r.ms, roundTrips: tripsNow(gauge) - from, report: JSON.parse(readFileSync(json, 'utf8')) as Report };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Breakdown {
  totalMs: number;
  discoveryMs: number;
  /** From the end of discovery to Vitest's close: the runner, every check, every tidy-up. */
  checksPhaseMs: number;
  sweepMs: number;
  /**
   * Per check: its own duration (scenario and other-run probes), the gap since the previous
   * result, and the sequential round trips in that gap (its tidy-up and recount included:
   * they run before the result is reported).
   */
  checks: Array<{ id: string; ms: number; wallMs: number; statements: number; outcome: string; roundTrips: number }>;
  /** Sequential round trips per phase; `between`: in the checks phase after the last result (Vitest closing). */
  roundTrips: { total: number; discovery: number; checks: number; between: number; sweep: number };
  /**
   * The checks phase minus the gaps between the first and the last result and the first
   * check's own time: Vitest's start (and the first file's load) and its close.
   */
  runnerMs: number;
  /** Sum over checks after the first of gap minus own duration: tidy-up after each check, loading the next file. */
  betweenMs: number;
}

/**
 * The catalogue in process, timed phase by phase. Vitest reports module starts in batches, so
 * a check's wall time is measured between results (which arrive as each test ends).
 */
export async function breakdown(
  target: string,
  direct: string,
  gauge: WireGauge,
  only: readonly string[] = [],
): Promise<Breakdown> {
  const phases: Record<string, number> = {};
  /** The wire's meter at the end of each phase. */
  const phaseTrips: Record<string, number> = {};
  const resultAt: Array<{ id: string; at: number }> = [];
  const tripsOf = new Map<string, number>();
  const t = performance.now();
  const from = tripsNow(gauge);
  let lastResult: number | null = null;
  const report = await run({
    target,
    direct,
    ...(only.length > 0 ? { only: [...only] } : {}),
    onPhase: (p, ms) => {
      phases[p] = ms;
      phaseTrips[p] = tripsNow(gauge);
    },
    onCheckResult: (r) => {
      // Module starts arrive in batches (above), so a check's round trips are counted from
      // the previous result (or the end of discovery): loading a file costs none.
      const now = tripsNow(gauge);
      resultAt.push({ id: r.id, at: performance.now() });
      tripsOf.set(r.id, now - (lastResult ?? phaseTrips.discovery ?? from));
      lastResult = now;
    },
  });
  const totalMs = performance.now() - t;
  const to = tripsNow(gauge);
  const discovered = phaseTrips.discovery ?? from;
  const checked = phaseTrips.checks ?? discovered;
  const inChecks = [...tripsOf.values()].reduce((n, x) => n + x, 0);
  const gap = new Map(resultAt.map((r, i) => [r.id, i === 0 ? 0 : r.at - resultAt[i - 1]!.at]));
  const checks = report.checks.map((c) => ({
    id: c.id,
    ms: c.durationMs,
    wallMs: gap.get(c.id) ?? 0,
    statements: c.statements,
    outcome: c.outcome ?? c.verdict,
    roundTrips: tripsOf.get(c.id) ?? 0,
  }));
  const first = report.checks.find((c) => c.id === resultAt[0]?.id);
  const span = resultAt.length > 0 ? resultAt.at(-1)!.at - resultAt[0]!.at : 0;
  const later = checks.filter((c) => c.id !== first?.id && gap.has(c.id));
  return {
    totalMs,
    discoveryMs: phases.discovery ?? 0,
    checksPhaseMs: phases.checks ?? 0,
    sweepMs: phases.sweep ?? 0,
    checks,
    runnerMs: (phases.checks ?? 0) - span - (first?.durationMs ?? 0),
    betweenMs: later.reduce((n, c) => n + c.wallMs - c.ms, 0),
    roundTrips: {
      total: to - from,
      discovery: discovered - from,
      checks: inChecks,
      between: checked - discovered - inChecks,
      sweep: (phaseTrips.sweep ?? to) - checked,
    },
  };
}

/** `.../suites/session/set-leak.test.js` -> `session/set-leak`. */
function idOf(file: string): string {
  const m = /suites\/(.+)\.test\.[jt]s$/.exec(file.split(path.sep).join('/'));
  return m?.[1] ?? file;
}
