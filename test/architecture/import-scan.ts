/** Reading a source tree's relative imports, for the layer rules (layers.test.ts, engine-layers.test.ts). */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every .ts file under `dir`, recursively. */
export function sourceFiles(dir: string): string[] {
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
