/**
 * Validation against the published JSON Schema (schema/report.schema.json). Every report a
 * test produces goes through here, so the schema cannot drift from what pooltest writes: a new
 * field in engine/types.ts without a schema change fails (additionalProperties is false
 * throughout), and so does a field that disappears (every field is required).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaValidator } from './ajv.js';
import type { Report } from '../../engine/types.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SCHEMA_FILE = path.join(REPO, 'schema/report.schema.json');

const ajv = schemaValidator();
const validate = ajv.compile<Report>(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);

/** The schema's errors for `value`, one readable line each; empty when it is a valid report. */
export function reportSchemaErrors(value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}

/** Throws with every schema error when `value` is not a valid report. */
export function assertValidReport(value: unknown): asserts value is Report {
  const errors = reportSchemaErrors(value);
  if (errors.length > 0) throw new Error(`report does not match schema/report.schema.json:\n  ${errors.join('\n  ')}`);
}
