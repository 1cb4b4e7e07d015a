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
  report: Report;
}

/** `pooltest --target ... --direct ...` in a fresh process, with its JSON report. */
export async function cliRun(target: string, direct: string): Promise<CliRun> {
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
    ]);
    if (r.code !== 0 && r.code !== 1) throw new Error(`pooltest exited ${r.code}: ${r.stderr.slice(0, 400)}`);
    return { ms: r.ms, report: JSON.parse(readFileSync(json, 'utf8')) as Report };
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
  /** Per check: its own duration (scenario and other-run probes) and the gap since the previous result. */
  checks: Array<{ id: string; ms: number; wallMs: number; statements: number; outcome: string }>;
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
export async function breakdown(target: string, direct: string): Promise<Breakdown> {
  const phases: Record<string, number> = {};
  const resultAt: Array<{ id: string; at: number }> = [];
  const t = performance.now();
  const report = await run({
    target,
    direct,
    onPhase: (p, ms) => (phases[p] = ms),
    onCheckResult: (r) => resultAt.push({ id: r.id, at: performance.now() }),
  });
  const totalMs = performance.now() - t;
  const gap = new Map(resultAt.map((r, i) => [r.id, i === 0 ? 0 : r.at - resultAt[i - 1]!.at]));
  const checks = report.checks.map((c) => ({
    id: c.id,
    ms: c.durationMs,
    wallMs: gap.get(c.id) ?? 0,
    statements: c.statements,
    outcome: c.outcome ?? c.verdict,
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
  };
}

/** `.../suites/session/set-leak.test.js` -> `session/set-leak`. */
function idOf(file: string): string {
  const m = /suites\/(.+)\.test\.[jt]s$/.exec(file.split(path.sep).join('/'));
  return m?.[1] ?? file;
}
