/**
 * Where `npm run new-check` lists a new check (scripts/new-check.ts): at the end of its area's
 * index.ts, or, for a new area, in an index.ts of its own that the catalogue imports and
 * reports last. Each edit keeps the file's shape, so the generator can add to it again.
 */

/** The name of an area's list in its index.ts and in the catalogue (`DEMO_CHECKS`). */
function areaList(area: string): string {
  return `${area.toUpperCase()}_CHECKS`;
}

/** A new area's index.ts, listing its first check. */
export function areaIndex(area: string, name: string, ident: string): string {
  return `/** The \`${area}/*\` checks, in report order. */
import { ${ident} } from './${name}.check.js';

export const ${areaList(area)} = [
  ${ident},
] as const;
`;
}

/** The catalogue with a new area imported (in the order of the imports' paths) and reported last. */
export function withAreaInCatalogue(text: string, area: string): string {
  const lines = text.split('\n');
  const areaImport = /^import \{ [A-Z_]+ \} from '\.\/([a-z]+)\/index\.js';$/;
  const imports = lines.flatMap((l, i) => (areaImport.test(l) ? [i] : []));
  if (imports.length === 0) throw new Error('suites/catalogue.ts imports no area: cannot place a new one');
  const before = imports.filter((i) => lines[i]!.replace(areaImport, '$1') < area);
  const at = before.length > 0 ? before[before.length - 1]! + 1 : imports[0]!;
  lines.splice(at, 0, `import { ${areaList(area)} } from './${area}/index.js';`);
  const start = lines.findIndex((l) => /^export const CATALOGUE = \[$/.test(l));
  const end = lines.findIndex((l, i) => i > start && /^\] as const;$/.test(l));
  if (start < 0 || end < 0) throw new Error('suites/catalogue.ts has no "export const CATALOGUE = [ ... ] as const;"');
  lines.splice(end, 0, `  ...${areaList(area)},`);
  return lines.join('\n');
}

/** The area's index with the check imported and listed last (its place in the report). */
export function withCheckInIndex(text: string, name: string, ident: string, area: string): string {
  const lines = text.split('\n');
  const importLine = `import { ${ident} } from './${name}.check.js';`;
  const imports = lines.flatMap((l, i) => (/^import .* from '\.\/.*\.check\.js';$/.test(l) ? [i] : []));
  if (imports.length === 0) throw new Error(`suites/${area}/index.ts imports no check: cannot place ${ident}`);
  // Among the check imports, in the order of their file names.
  const after = imports.filter((i) => lines[i]!.replace(/.*'\.\/(.*)\.check\.js';$/, '$1') < name);
  lines.splice(after.length > 0 ? after[after.length - 1]! + 1 : imports[0]!, 0, importLine);
  // Prettier writes a list of one check on one line: open it up first.
  const oneLine = lines.findIndex((l) => /^export const [A-Z_]+ = \[.*\] as const;$/.test(l));
  if (oneLine >= 0) {
    const [, head, items] = /^(export const [A-Z_]+ = \[)(.*)\] as const;$/.exec(lines[oneLine]!)!;
    const listed = items!.split(',').flatMap((s) => (s.trim() ? [`  ${s.trim()},`] : []));
    lines.splice(oneLine, 1, head!, ...listed, '] as const;');
  }
  const end = lines.findIndex((l) => /^\] as const;$/.test(l));
  if (end < 0) throw new Error(`suites/${area}/index.ts has no "] as const;" closing its list`);
  lines.splice(end, 0, `  ${ident},`);
  return lines.join('\n');
}
