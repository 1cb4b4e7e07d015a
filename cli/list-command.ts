/**
 * `pooltest --list` and `pooltest --list-profiles [NAME]`: what a user needs to read a report
 * or choose a profile, without running anything. `--list` gives each check's outcome labels
 * (the docs send readers here for them), split into those that break an application written
 * for a direct connection and those that do not; `--verbose` adds each label's meaning.
 * `--json FILE` writes the same as JSON; the other output files have nothing to say here and
 * are refused rather than silently ignored.
 */
import type { OutcomeInfo } from '../engine/execute/check.js';
import { PooltestError } from '../engine/record/errors.js';
import { findProfile, PROFILES } from '../profiles/index.js';
import { selectChecks, toolVersion } from '../runner/run.js';
import { CATALOGUE } from '../suites/catalogue.js';
import { outcomeBreaks } from '../suites/outcome-breaks.js';
import type { Profile } from '../engine/record/profile.js';
import type { CliOptions } from './args.js';
import { checkOutputs, writeOutput } from './outputs.js';
import { STDOUT } from '../common/option-table.js';

/** Prints (or with --json writes) the list asked for; returns the exit code. */
export function listCommand(opts: CliOptions, print: (text: string) => void): number {
  const which = opts.list ? '--list' : '--list-profiles';
  if (opts.list && opts.listProfiles)
    throw new PooltestError('BAD_ARGUMENTS', '--list and --list-profiles each print a list of their own: pick one');
  for (const [flag, value] of [
    ['--junit', opts.junit],
    ['--markdown', opts.markdown],
    ['--html', opts.html],
  ] as const)
    if (value !== undefined)
      throw new PooltestError(
        'BAD_ARGUMENTS',
        `${which} runs nothing, so ${flag} has nothing to write (--json FILE writes the list as JSON)`,
      );
  const json = opts.list ? catalogueJson(opts) : profilesJson(opts);
  if (opts.json !== undefined) {
    checkOutputs({ json: opts.json });
    writeOutput(opts.json, `${JSON.stringify(json, null, 2)}\n`);
    // On standard output (`--json -`) the list is all there is to read.
    if (!opts.quiet && opts.json !== STDOUT) print(`${which}: wrote ${opts.json}\n`);
    return 0;
  }
  print(opts.list ? listCatalogue(opts) : listProfiles(profilesOf(opts)));
  return 0;
}

function checksOf(opts: CliOptions): readonly (typeof CATALOGUE)[number][] {
  const ids = new Set(selectChecks(opts.only, opts.skip));
  return CATALOGUE.filter((c) => ids.has(c.id));
}

function catalogueJson(opts: CliOptions): object {
  return {
    tool: { name: 'pooltest', version: toolVersion() },
    checks: checksOf(opts).map((c) => ({
      id: c.id,
      title: c.title,
      severity: c.severity,
      summary: c.summary,
      // Whether a label breaks is the word's (suites/outcome-breaks.ts), shown beside each label.
      outcomes: Object.fromEntries(
        Object.entries(c.outcomes as Record<string, OutcomeInfo>).map(([l, o]) => [l, { ...o, breaks: breaks(l) }]),
      ),
    })),
  };
}

function listCatalogue(opts: CliOptions): string {
  const checks = checksOf(opts);
  const w = Math.max(...checks.map((c) => c.id.length));
  const lines = checks.flatMap((c) => {
    const outcomes = c.outcomes as Record<string, OutcomeInfo>;
    const labels = Object.keys(c.outcomes);
    const fine = labels.filter((l) => !breaks(l));
    const breaking = labels.filter(breaks);
    const head = `${c.id.padEnd(w)}  ${c.severity.padEnd(12)}  ${c.title}`;
    const summary = `    outcomes: ${fine.join(', ') || '-'}; breaks: ${breaking.join(', ') || '-'}`;
    const meanings = opts.verbose ? labels.map((l) => `      ${l}: ${outcomes[l]!.means}`) : [];
    return [head, summary, ...meanings];
  });
  return `${lines.join('\n')}\n\n(a check that could not force or prove its situation is inconclusive, whatever its labels; --verbose says what each label means)\n`;
}

function breaks(label: string): boolean {
  return outcomeBreaks(label) === true;
}

function profilesOf(opts: CliOptions): readonly Profile[] {
  // findProfile's UNKNOWN_PROFILE names every profile there is.
  return opts.profileName !== undefined ? [findProfile(opts.profileName)] : PROFILES;
}

function profilesJson(opts: CliOptions): object {
  return { tool: { name: 'pooltest', version: toolVersion() }, profiles: profilesOf(opts) };
}

function listProfiles(profiles: readonly Profile[]): string {
  return (
    profiles
      .map((p) => {
        // The note carries caveats (source-only, configuration-dependent): never drop it.
        const rows = Object.entries(p.expect).map(([id, e]) => {
          const basis = e.basis === 'observed' ? `observed on ${e.observedOn ?? '?'}` : (e.basis ?? 'basis not stated');
          const more = [`basis: ${basis}`, ...(e.note ? [`note: ${e.note}`] : [])]
            .map((t) => `\n    ${''.padEnd(30)} ${''.padEnd(14)} ${t}`)
            .join('');
          return `    ${id.padEnd(30)} ${e.outcome.padEnd(14)} ${e.ref}${more}`;
        });
        return [`${p.name}: ${p.title} (${p.versions})`, `  ref: ${p.ref}`, ...rows].join('\n');
      })
      .join('\n\n') + '\n'
  );
}
