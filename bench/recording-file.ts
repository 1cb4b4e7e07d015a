/**
 * How a recorder stores a fixture's run in test/recorded/<fixture>.json: what discovery found,
 * and each check's steps and outcome. With `merge`, the checks of the new run join those already
 * in the file (and its discovery is kept), as `npm run record -- test/recorded <id>` does for a
 * new check; without it the file is replaced.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Discovery, StepRecord } from '../engine/types.js';

/** A check's entry in a recording: what it concluded, and the steps it concluded it from. */
export interface RecordedCheck {
  outcome: string | null;
  steps: StepRecord[];
}

type StoredDiscovery = Omit<Discovery, 'steps'>;

export function storeRecording(
  file: string,
  fixture: string,
  discovery: StoredDiscovery,
  checks: Record<string, RecordedCheck>,
  merge: boolean,
): void {
  const kept =
    merge && existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as {
          discovery: StoredDiscovery;
          checks: Record<string, RecordedCheck>;
        })
      : null;
  const record = { fixture, discovery: kept?.discovery ?? discovery, checks: { ...kept?.checks, ...checks } };
  writeFileSync(file, JSON.stringify(record, null, 1) + '\n');
}
