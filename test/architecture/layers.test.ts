/**
 * The dependency rule: every folder of the product imports only from the layers below it, so
 * the picture in README ("How the code is laid out") stays true. A violation names the file,
 * the import and the rule it breaks. Node built-ins and npm packages are not layers.
 *
 *   cli ─┬─> audit, watch ─> runner ─> reporters ─> profiles ─> suites ─> engine
 *        └─> fixtures ────────────────────────────────────────────────> engine
 *   reporters, runner and above may also use drivers (real drivers' agents), which uses engine.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

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
  audit: ['engine', 'suites', 'profiles', 'reporters', 'runner', 'drivers'],
  watch: ['engine', 'suites', 'profiles', 'reporters', 'runner', 'audit', 'drivers'],
  cli: ['engine', 'suites', 'profiles', 'reporters', 'runner', 'audit', 'watch', 'fixtures', 'drivers'],
  bench: ['engine', 'suites', 'profiles', 'reporters', 'runner', 'audit', 'watch', 'cli', 'fixtures', 'drivers'],
  scripts: ['engine', 'suites', 'profiles', 'reporters', 'runner', 'audit', 'watch', 'cli', 'fixtures', 'drivers'],
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (name.endsWith('.ts')) out.push(full);
  }
  return out;
}

/** Relative specifiers of static imports, re-exports and dynamic `import()` calls. */
export function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm))
    found.push(m[2]!);
  return found;
}

function layerOf(file: string): string | null {
  const top = path.relative(REPO, file).split(path.sep)[0]!;
  return Object.hasOwn(ALLOWED, top) ? top : null;
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

  test('control: an engine file importing the catalogue would be reported', () => {
    const layer = 'engine';
    const target = layerOf(path.join(REPO, 'suites', 'catalogue.ts'));
    expect(target).toBe('suites');
    expect(ALLOWED[layer]!.includes(target!)).toBe(false);
  });
});
