/**
 * Turns the benchmark's raw samples into medians and ratios, prints the compact table and
 * writes every figure as JSON (for the lead to re-measure and compare on a quiet machine).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Breakdown } from './measure.js';

export interface ConditionSamples {
  name: string;
  delayMs: number;
  floorMs: number[];
  cliMs: number[];
  /** Checks with an outcome (not inconclusive, not skipped), per CLI run. */
  cliConclusive: number[];
  cliOutcomes: Array<Record<string, string>>;
  /** Sequential round trips per CLI run, counted on the proxies' wire (bench/speed/round-trips.ts). */
  cliRoundTrips: number[];
  breakdowns: Breakdown[];
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface ConditionSummary {
  name: string;
  delayMs: number;
  runs: number;
  floorMs: number;
  cliMs: number;
  cliOverFloor: number;
  conclusive: number;
  inProcessMs: number;
  discoveryMs: number;
  runnerMs: number;
  betweenMs: number;
  checksMs: number;
  sweepMs: number;
  /** Median sequential round trips: the CLI run, and the in-process run by phase. */
  roundTrips: { cli: number } & Breakdown['roundTrips'];
  checks: Record<string, { ms: number; wallMs: number; statements: number; roundTrips: number; outcomes: string[] }>;
}

export function summarise(c: ConditionSamples): ConditionSummary {
  const floor = median(c.floorMs);
  const cli = median(c.cliMs);
  const of = (f: (b: Breakdown) => number): number => median(c.breakdowns.map(f));
  const checks: ConditionSummary['checks'] = {};
  for (const id of c.breakdowns[0]?.checks.map((x) => x.id) ?? []) {
    const rows = c.breakdowns.map((b) => b.checks.find((x) => x.id === id)!).filter(Boolean);
    const outcomes = new Set([...rows.map((r) => r.outcome), ...c.cliOutcomes.map((o) => o[id] ?? '?')]);
    checks[id] = {
      ms: median(rows.map((r) => r.ms)),
      wallMs: median(rows.map((r) => r.wallMs)),
      statements: median(rows.map((r) => r.statements)),
      roundTrips: median(rows.map((r) => r.roundTrips)),
      outcomes: [...outcomes],
    };
  }
  return {
    name: c.name,
    delayMs: c.delayMs,
    runs: c.cliMs.length,
    floorMs: floor,
    cliMs: cli,
    cliOverFloor: cli / floor,
    conclusive: Math.min(...c.cliConclusive),
    inProcessMs: of((b) => b.totalMs),
    discoveryMs: of((b) => b.discoveryMs),
    runnerMs: of((b) => b.runnerMs),
    betweenMs: of((b) => b.betweenMs),
    checksMs: of((b) => b.checks.reduce((n, x) => n + x.ms, 0)),
    sweepMs: of((b) => b.sweepMs),
    roundTrips: {
      cli: median(c.cliRoundTrips),
      total: of((b) => b.roundTrips.total),
      discovery: of((b) => b.roundTrips.discovery),
      checks: of((b) => b.roundTrips.checks),
      between: of((b) => b.roundTrips.between),
      sweep: of((b) => b.roundTrips.sweep),
    },
    checks,
  };
}

const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const x = (r: number): string => `${r.toFixed(2)}x`;

/** The compact table: one column per condition. */
export function render(sums: ConditionSummary[]): string {
  const lines: string[] = [];
  const head = (label: string, cells: string[]): void =>
    void lines.push(`${label.padEnd(44)}${cells.map((c) => c.padStart(22)).join('')}`);
  head(
    '',
    sums.map((c) => c.name),
  );
  head(
    'floor (Node + Vitest + 1 query), median',
    sums.map((c) => s(c.floorMs)),
  );
  head(
    'catalogue, fresh pooltest process',
    sums.map((c) => `${s(c.cliMs)} ${x(c.cliOverFloor)}`),
  );
  head(
    '  checks conclusive (worst run)',
    sums.map((c) => `${c.conclusive}/${Object.keys(c.checks).length}`),
  );
  head(
    'catalogue in process (run())',
    sums.map((c) => `${s(c.inProcessMs)} ${x(c.inProcessMs / c.floorMs)}`),
  );
  const part = (label: string, f: (c: ConditionSummary) => number): void =>
    head(
      `  ${label}`,
      sums.map((c) => `${s(f(c))} ${((100 * f(c)) / c.inProcessMs).toFixed(0).padStart(3)}%`),
    );
  part('discovery', (c) => c.discoveryMs);
  part('runner (Vitest start, stop, 1st load)', (c) => c.runnerMs);
  part('between checks (tidy-up, file load)', (c) => c.betweenMs);
  part('checks (sum of own durations)', (c) => c.checksMs);
  part('sweep', (c) => c.sweepMs);
  const far = sums.filter((c) => c.delayMs > 0);
  if (far.length > 0) {
    lines.push('');
    const trips = (label: string, f: (c: ConditionSummary) => number): void =>
      head(
        label,
        sums.map((c) => (c.delayMs > 0 ? f(c).toFixed(0) : '-')),
      );
    trips('sequential round trips, counted: pooltest', (c) => c.roundTrips.cli);
    trips('  in process (run())', (c) => c.roundTrips.total);
    trips('    discovery', (c) => c.roundTrips.discovery);
    trips('    checks (each to its result, tidy-up in)', (c) => c.roundTrips.checks);
    trips('    after the last check (Vitest closing)', (c) => c.roundTrips.between);
    trips('    sweep', (c) => c.roundTrips.sweep);
    const base = sums.find((c) => c.delayMs === 0);
    if (base) {
      trips('derived: (time - loopback time) / round trip', (c) => (c.cliMs - base.cliMs) / (2 * c.delayMs));
      // On a busy machine both wall times are noise; the count is not. Loopback time plus the
      // counted round trips at this round trip is what a quiet machine would take, at most
      // (the count includes logins ahead that overlap CPU time rather than wait for it).
      head(
        'estimate: loopback time + counted x round trip',
        sums.map((c) => (c.delayMs > 0 ? s(base.cliMs + c.roundTrips.cli * 2 * c.delayMs) : '-')),
      );
    }
  }
  lines.push('');
  head(
    'check (own ms, median; statements on loopback, sequential round trips at a distance)',
    sums.map((c) => c.name),
  );
  for (const id of Object.keys(sums[0]?.checks ?? {})) {
    head(
      `  ${id}`,
      sums.map((c) => {
        const k = c.checks[id];
        const n = c.delayMs > 0 ? k?.roundTrips.toFixed(0) : k?.statements;
        return k
          ? `${k.ms.toFixed(0).padStart(4)} ms ${String(n).padStart(3)} ${k.outcomes.join(',')}`.slice(0, 21)
          : '-';
      }),
    );
  }
  for (const c of sums.slice(1)) {
    lines.push('');
    lines.push(
      `latency cost at ${c.name}: catalogue ${x(c.cliMs / sums[0]!.cliMs)} of loopback; floor ${x(c.floorMs / sums[0]!.floorMs)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Writes every sample and summary; returns the path. */
export function writeJson(file: string, data: unknown): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
