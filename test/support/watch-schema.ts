/**
 * Validation of `pooltest watch --json` output against schema/watch-report.schema.json
 * (additionalProperties false, every field required), so the documented format cannot drift.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
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
