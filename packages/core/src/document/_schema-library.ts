/**
 * Ajv, the JSON Schema 2020-12 validator of `<Elicit>` answer schemas (which
 * may use all of JSON Schema, unlike props). Imported only through
 * `schema-library.ts`, when a program holding an `<Elicit>` is loaded or a
 * stored answer schema is checked, so no other command loads it.
 *
 * @module
 */
import Ajv from "ajv/dist/2020.js";

// Under Deno's npm interop the default import is the CommonJS `module.exports`;
// Ajv's typings expose the class only as its `default` member, which the
// package also sets at run time, so that member works for both.
/** Ajv for JSON Schema 2020-12. */
export const AjvClass: typeof Ajv.default = Ajv.default;
