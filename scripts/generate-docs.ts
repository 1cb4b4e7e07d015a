/**
 * `npm run docs`: rewrites the generated tables of README.md and INTERPRETING.md from the check
 * files and profiles (reporters/catalogue-docs.ts). test/architecture/generated-docs.test.ts
 * fails when the committed files differ from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fillGenerated, GENERATED } from '../reporters/catalogue-docs.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

for (const [file, sections] of Object.entries(GENERATED)) {
  const full = path.join(REPO, file);
  const before = readFileSync(full, 'utf8');
  const after = fillGenerated(before, sections);
  if (after !== before) writeFileSync(full, after);
  console.log(`${file}: ${after === before ? 'up to date' : 'rewritten'}`);
}
