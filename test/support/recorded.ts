/**
 * Recorded event logs (test/recorded/*.json, written by `npm run record` against real
 * fixtures) and small, explicit mutations of them for the paths a healthy pooler never takes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './cli.js';
import type { Discovery, StepRecord } from '../../engine/types.js';

export interface RecordedCheck {
  outcome: string | null;
  steps: StepRecord[];
}

export interface RecordedRun {
  fixture: string;
  discovery: Discovery;
  checks: Record<string, RecordedCheck>;
}

export const FIXTURES = [
  'direct',
  'pgbouncer-transaction',
  'pgbouncer-session',
  'pgbouncer-statement',
  'pgpool',
] as const;

export function recorded(fixture: string): RecordedRun {
  const run = JSON.parse(readFileSync(path.join(REPO, 'test/recorded', `${fixture}.json`), 'utf8')) as RecordedRun;
  run.discovery.steps = [];
  return run;
}

/** A deep copy of a recorded check's steps, to mutate freely. */
export function stepsOf(fixture: string, id: string): StepRecord[] {
  const check = recorded(fixture).checks[id];
  if (!check) throw new Error(`no recorded ${id} in ${fixture}`);
  return structuredClone(check.steps);
}

/** Applies `change` to every step with `tag` (all of them, or the first `limit`). */
export function mutate(steps: StepRecord[], tag: string, change: (s: StepRecord) => void): StepRecord[] {
  for (const s of steps) if (s.tag === tag) change(s);
  return steps;
}

export function without(steps: StepRecord[], tag: string): StepRecord[] {
  return steps.filter((s) => s.tag !== tag);
}
