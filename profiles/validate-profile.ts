/**
 * What makes a profile well-formed: every field filled, every reference something a reader can
 * open, every expectation about a check of the contract and one of that check's labels. A
 * profile that expects a label its check can never report would fail every run for no reason.
 */
import { isCheckId, labelsOf, perParameterOf } from '../suites/labels.js';
import type { Profile } from '../engine/record/profile.js';

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
      problems.push(
        `${where}: ${id} expects "${e.outcome}", not one of its labels (${labels.join(', ') || 'none settled yet'})`,
      );
    }
    if (!isReference(e.ref)) problems.push(`${where}: ${id} has no usable reference ("${e.ref}")`);
    for (const [name, outcome] of Object.entries(e.parameters ?? {})) {
      if (!(perParameterOf(id) ?? []).includes(name))
        problems.push(`${where}: ${id} has no outcome per parameter for "${name}"`);
      if (!labels.includes(outcome))
        problems.push(`${where}: ${id} expects "${outcome}" of ${name}, not one of its labels`);
    }
    if (e.note !== undefined && e.note.trim() === '') problems.push(`${where}: ${id} has an empty note`);
  }
  return problems;
}

/** Branch-like names a reference must not point at: what they show changes under the profile. */
const MOVING = new Set(['main', 'master', 'head', 'latest', 'current', 'develop', 'dev', 'trunk', 'stable']);

/** Every URL or `owner/repo@ref:path` inside a reference text. */
function referencesIn(ref: string): string[] {
  return ref.match(/https:\/\/[^\s;,()]+|[\w.-]+\/[\w.-]+@[\w.-]+:[^\s;,()]+/g) ?? [];
}

/**
 * Why `one` (a single URL or repository reference) may change under a profile, or null when it
 * is pinned: a repository path at a commit or tag, a versioned manual (`/docs/15/`), or a
 * GitHub pull request, commit or release.
 */
export function movingReference(one: string): string | null {
  const repo = /^[\w.-]+\/[\w.-]+@([\w.-]+):/.exec(one);
  if (repo)
    return MOVING.has(repo[1]!.toLowerCase()) ? `"${one}" points at the branch ${repo[1]}; pin a commit or tag` : null;
  if (/^https:\/\/www\.(postgresql|pgpool)\.(org|net)\/docs\/\d+\//.test(one)) return null;
  if (/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/(pull\/\d+|commit\/[0-9a-f]{7,}|releases\/tag\/)/.test(one))
    return null;
  const blob = /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/(?:blob|tree)\/([\w.-]+)\//.exec(one);
  if (blob && !MOVING.has(blob[1]!.toLowerCase())) return null;
  return `"${one}" is a page that changes with each release; cite a versioned manual, or the source at a commit or tag (owner/repo@ref:path)`;
}

/**
 * What a built-in profile must also be: every expectation says how it is known (observed on a
 * named version, or documented / read in source at a pinned reference), and no reference
 * points at something that moves.
 */
export function provenanceProblems(p: Profile): string[] {
  const problems: string[] = [];
  const where = `profile "${p.name}"`;
  for (const one of referencesIn(p.ref)) {
    const moving = movingReference(one);
    if (moving) problems.push(`${where}: ${moving}`);
  }
  for (const [id, e] of Object.entries(p.expect)) {
    if (e.basis === undefined)
      problems.push(`${where}: ${id} does not say how it is known (basis: observed, documented or source)`);
    if (e.basis === 'observed' && !e.observedOn?.trim())
      problems.push(`${where}: ${id} is observed, but not on which version`);
    for (const one of referencesIn(e.ref)) {
      const moving = movingReference(one);
      if (moving) problems.push(`${where}: ${id}: ${moving}`);
    }
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
