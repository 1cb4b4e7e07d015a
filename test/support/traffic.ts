/**
 * The traffic checks' recorded logs (test/recorded/<fixture>-traffic.json, written by
 * bench/record-traffic.ts against every fixture): transactions/, statement/, cancel/ and
 * capacity/, with capacity/burst recorded on the same kind of stack over a Postgres with
 * max_connections = 25.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './cli.js';
import type { RecordedRun } from './recorded.js';
import type { Discovery, StepRecord } from '../../engine/types.js';

export const TRAFFIC_FIXTURES = [
  'direct',
  'pgbouncer-transaction',
  'pgbouncer-session',
  'pgbouncer-statement',
  'pgpool',
  'pgbouncer-transaction-reset-always',
  'pgbouncer-session-no-reset',
  'pgbouncer-small-max-client',
] as const;

export type TrafficFixture = (typeof TRAFFIC_FIXTURES)[number];

export interface TrafficRun extends RecordedRun {
  /** Discovery of the max_connections = 25 stack capacity/burst ran on. */
  burstDiscovery: Discovery;
}

export function traffic(fixture: TrafficFixture): TrafficRun {
  const run = JSON.parse(
    readFileSync(path.join(REPO, 'test/recorded', `${fixture}-traffic.json`), 'utf8'),
  ) as TrafficRun;
  run.discovery.steps = [];
  run.burstDiscovery.steps = [];
  return run;
}

/** A deep copy of one check's recorded steps, to mutate freely. */
export function trafficSteps(fixture: TrafficFixture, id: string): StepRecord[] {
  const check = traffic(fixture).checks[id];
  if (!check) throw new Error(`no recorded ${id} in ${fixture}-traffic`);
  return structuredClone(check.steps);
}

/** Sets column `name` wherever a step's rows carry it. */
export function setColumn(step: StepRecord, name: string, value: unknown): void {
  for (const rows of step.results) for (const row of rows) if (name in row) row[name] = value;
}

/** The fixtures whose recorded outcome for `id` is `outcome`. */
export function fixturesWith(id: string, outcome: string | null): TrafficFixture[] {
  return TRAFFIC_FIXTURES.filter((f) => traffic(f).checks[id]?.outcome === outcome);
}
