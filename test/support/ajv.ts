/**
 * The one JSON Schema validator the tests use (draft 2020-12, every error, strict about the
 * schema itself), with ajv-formats' formats (date-time and the like) added.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';

/** A fresh validator; add or compile the schemas on it. */
export function schemaValidator(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  // ajv-formats is CommonJS. Under NodeNext its default import is typed as the module, whose
  // `default` is the plugin; at run time it is module.exports, which is the plugin and also
  // carries itself as `default` (exports.default in its index.js). `.default` is therefore the
  // plugin in both readings, and the types agree.
  ajvFormats.default(ajv);
  return ajv;
}
