/**
 * What makes a profile well-formed: every field filled, every reference something a reader can
 * open, every expectation about a check of the contract and one of that check's labels. A
 * profile that expects a label its check can never report would fail every run for no reason.
 */
import { isCheckId, labelsOf } from '../suites/labels.js';
import type { Profile } from '../engine/types.js';

/** `https://...` or `owner/repo@ref:path`, each optionally followed by a comment. */
const REFERENCE = /^(https:\/\/\S+|[\w.-]+\/[\w.-]+@[\w.-]+:\S+)/;
const PROFILE_NAME = /^[a-z0-9]+(?:[.-][a-z0-9]+)*$/;

/** Whether `ref` starts with something a reader can open: a URL or a repository path. */
export function isReference(ref: string): boolean {
  return REFERENCE.test(ref.trim());
}

/** Everything wrong with one profile, one sentence each; empty when it is well-formed. */
export function profileProblems(p: Profile): string[] {
  const problems: string[] = [];
  const where = `profile "${p.name}"`;
  if (!PROFILE_NAME.test(p.name)) problems.push(`${where}: name must be lower-case words joined by - or .`);
  for (const field of ['title', 'pooler', 'mode', 'versions'] as const) {
    if (p[field].trim() === '') problems.push(`${where}: ${field} is empty`);
  }
  if (!isReference(p.ref)) problems.push(`${where}: ref "${p.ref}" is neither a URL nor owner/repo@ref:path`);
  for (const [id, e] of Object.entries(p.expect)) {
    if (!isCheckId(id)) {
      problems.push(`${where}: "${id}" is not a known check id`);
      continue;
    }
    const labels = labelsOf(id) ?? [];
    if (!labels.includes(e.outcome)) {
      problems.push(`${where}: ${id} expects "${e.outcome}", not one of its labels (${labels.join(', ') || 'none settled yet'})`);
    }
    if (!isReference(e.ref)) problems.push(`${where}: ${id} has no usable reference ("${e.ref}")`);
    if (e.note !== undefined && e.note.trim() === '') problems.push(`${where}: ${id} has an empty note`);
  }
  return problems;
}

/** Problems of each profile, plus names used twice. */
export function profilesProblems(profiles: readonly Profile[]): string[] {
  const seen = new Set<string>();
  const problems = profiles.flatMap(profileProblems);
  for (const p of profiles) {
    if (seen.has(p.name)) problems.push(`profile name "${p.name}" is used twice`);
    seen.add(p.name);
  }
  return problems;
}
