/**
 * The dependency rule: every folder of the product imports only from the layers below it, so
 * the picture in README ("How the code is laid out") stays true. A violation names the file,
 * the import and the rule it breaks. Node built-ins and npm packages are not layers.
 *
 *   cli ─┬─> watch ─> audit ─> runner ─> reporters ─> profiles ─> suites ─> engine
 *        │      └───────┴───> common ──────────────────────────────────────> engine
 *        └─> fixtures ─────────────────────────────────────────────────────> engine
 *   reporters, runner and above may also use drivers (real drivers' agents), which uses engine.
 *   common/ holds what the audit and watch both use: SQL parsing (libpg-query and its AST),
 *   bounded caches, command-line arguments, display text and the "could not run" ending. watch
 *   uses audit only for what the audit knows about checks and poolers (WATCH_MAY_USE_FROM_AUDIT).
 *   A check's Vitest entry (suites/<area>/<name>.test.ts) is hosted by the runner's Vitest glue
 *   (SUITE_ENTRIES_MAY_USE_FROM_RUNNER), the one import of suites/ that points up.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { relativeImports, sourceFiles } from './import-scan.js';

const REPO = path.resolve(import.meta.dirname, '../..');

/** What each top-level folder may import from, besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  engine: [],
  drivers: ['engine'],
  suites: ['engine'],
  profiles: ['engine', 'suites'],
  reporters: ['engine', 'suites', 'profiles', 'drivers'],
  fixtures: ['engine'],
  runner: ['engine', 'suites', 'profiles', 'reporters', 'drivers'],
  common: ['engine'],
  audit: ['engine', 'suites', 'profiles', 'reporters', 'runner', 'common', 'drivers'],
  watch: ['engine', 'suites', 'profiles', 'reporters', 'runner', 'common', 'audit', 'drivers'],
  cli: ['engine', 'suites', 'profiles', 'reporters', 'runner', 'common', 'audit', 'watch', 'fixtures', 'drivers'],
  bench: [
    'engine',
    'suites',
    'profiles',
    'reporters',
    'runner',
    'common',
    'audit',
    'watch',
    'cli',
    'fixtures',
    'drivers',
  ],
  scripts: [
    'engine',
    'suites',
    'profiles',
    'reporters',
    'runner',
    'common',
    'audit',
    'watch',
    'cli',
    'fixtures',
    'drivers',
  ],
};

/**
 * The audit's modules watch may import: what the audit knows about checks, poolers and how a
 * statement's hazard is classified, which watch applies to live traffic, and the Markdown
 * table of protocol traffic both reports end with (traffic-markdown.ts: it renders with
 * reporters/, which common/ may not use). Everything else the two use (parsing SQL, caches,
 * arguments) lives below both, in common/; any other audit module is the audit's own.
 */
export const WATCH_MAY_USE_FROM_AUDIT: readonly string[] = [
  'audit/audit-checks.ts',
  'audit/audit-types.ts',
  'audit/findings-exit.ts',
  'audit/pooler-behaviour.ts',
  'audit/pooler-source.ts',
  'audit/protocol-traffic.ts',
  'audit/set-statement.ts',
  'audit/target-run.ts',
  'audit/traffic-markdown.ts',
];

/**
 * What a check's Vitest entry file (a suites/ file ending .test.ts, never a .check.ts) may import from
 * runner/: the glue that hosts a check in Vitest (checkTest). It is the runner's (it waits for
 * the run context the runner hands over), but Vitest only finds checks as test files in suites/.
 * Nothing it imports reaches the catalogue, so no cycle through suites/ comes of it.
 */
export const SUITE_ENTRIES_MAY_USE_FROM_RUNNER: readonly string[] = ['runner/vitest-check.ts'];

/** Whether `file` (in suites/) importing `resolved` is a check's entry using the runner's Vitest glue. */
function suiteEntryMayUse(file: string, resolved: string): boolean {
  const used = path.relative(REPO, resolved).replace(/\.js$/, '.ts');
  return file.endsWith('.test.ts') && SUITE_ENTRIES_MAY_USE_FROM_RUNNER.includes(used);
}

function layerOf(file: string): string | null {
  const top = path.relative(REPO, file).split(path.sep)[0]!;
  return Object.hasOwn(ALLOWED, top) ? top : null;
}

/** Whether a watch import of `resolved` (a .js specifier resolved to a path) is one it may make. */
function watchMayUse(resolved: string): boolean {
  return WATCH_MAY_USE_FROM_AUDIT.includes(path.relative(REPO, resolved).replace(/\.js$/, '.ts'));
}

function violations(): string[] {
  const bad: string[] = [];
  for (const layer of Object.keys(ALLOWED)) {
    const dir = path.join(REPO, layer);
    let files: string[];
    try {
      files = sourceFiles(dir);
    } catch {
      continue; // a layer that does not exist yet has nothing to violate
    }
    for (const file of files) {
      for (const spec of relativeImports(readFileSync(file, 'utf8'))) {
        const to = layerOf(path.resolve(path.dirname(file), spec));
        if (to === null) {
          bad.push(`${path.relative(REPO, file)} imports ${spec}, outside every layer`);
        } else if (layer === 'watch' && to === 'audit' && !watchMayUse(path.resolve(path.dirname(file), spec))) {
          bad.push(
            `${path.relative(REPO, file)} imports ${spec}, one of audit's internals: watch may use only ${WATCH_MAY_USE_FROM_AUDIT.join(', ')} (what both need goes in common/)`,
          );
        } else if (
          layer === 'suites' &&
          to === 'runner' &&
          suiteEntryMayUse(file, path.resolve(path.dirname(file), spec))
        ) {
          continue;
        } else if (to !== layer && !ALLOWED[layer]!.includes(to)) {
          bad.push(
            `${path.relative(REPO, file)} imports ${spec}: ${layer}/ may import only ${ALLOWED[layer]!.join(', ') || 'itself'}`,
          );
        }
      }
    }
  }
  return bad;
}

describe('layers point down', () => {
  test('no folder imports from a layer above it', () => {
    expect(violations()).toEqual([]);
  });

  test('control: the scanner sees static, type-only, re-exported and dynamic imports', () => {
    const src = [
      "import { a } from '../suites/x.js';",
      "import type { B } from '../reporters/y.js';",
      "export { c } from '../cli/z.js';",
      "const m = await import('../fixtures/w.js');",
      "import '../runner/side-effect.js';",
      "import pg from 'pg';",
    ].join('\n');
    expect(relativeImports(src)).toEqual([
      '../suites/x.js',
      '../reporters/y.js',
      '../cli/z.js',
      '../fixtures/w.js',
      '../runner/side-effect.js',
    ]);
  });

  test("control: watch importing one of audit's internals would be reported, its shared utilities not", () => {
    expect(watchMayUse(path.join(REPO, 'audit', 'statement-classifier.js'))).toBe(false);
    expect(watchMayUse(path.join(REPO, 'audit', 'pooler-behaviour.js'))).toBe(true);
    expect(ALLOWED.watch!.includes('common')).toBe(true);
    expect(ALLOWED.common!.some((l) => l === 'audit' || l === 'watch')).toBe(false);
  });

  test("control: only a check's Vitest entry may use the runner's Vitest glue, and nothing else of runner/", () => {
    const glue = path.join(REPO, 'runner', 'vitest-check.js');
    expect(suiteEntryMayUse(path.join(REPO, 'suites', 'session', 'set-leak.test.ts'), glue)).toBe(true);
    expect(suiteEntryMayUse(path.join(REPO, 'suites', 'session', 'set-leak.check.ts'), glue)).toBe(false);
    expect(
      suiteEntryMayUse(path.join(REPO, 'suites', 'session', 'set-leak.test.ts'), path.join(REPO, 'runner', 'run.js')),
    ).toBe(false);
  });

  test('control: an engine file importing the catalogue would be reported', () => {
    const layer = 'engine';
    const target = layerOf(path.join(REPO, 'suites', 'catalogue.ts'));
    expect(target).toBe('suites');
    expect(ALLOWED[layer]!.includes(target!)).toBe(false);
  });
});
