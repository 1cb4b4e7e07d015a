/**
 * Validation of `pooltest watch --json` output against schema/watch-report.schema.json
 * (additionalProperties false, every field required), so the documented format cannot drift.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaValidator } from './ajv.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ajv = schemaValidator();
const validate = ajv.compile(
  JSON.parse(readFileSync(path.join(REPO, 'schema/watch-report.schema.json'), 'utf8')) as object,
);

/** Schema errors for `value`, one line each; empty when valid. */
export function watchSchemaErrors(value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}
