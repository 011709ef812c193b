/**
 * Placeholder values: what documents and examples put where a secret would
 * go. The gate's own rules skip them so a template or a redacted value never
 * blocks an append, while anything else of secret length still does.
 *
 * @module
 */

const PLACEHOLDERS = [
  // One character repeated: `********`, `xxxxxxxx`, `........`.
  /^(.)\1*$/s,
  /^<.*>$/s,
  /^\{\{.*\}\}$/s,
  // Shell and template references: `${TOKEN}`, `$(pass show x)`, `$API_KEY`.
  /^\$\{.*\}$/s,
  /^\$\(.*\)$/s,
  /^\$[A-Z_][A-Z0-9_]*$/,
  /^changeme$/i,
];

/** Whether `value` is an obvious placeholder rather than a credential. */
export function isPlaceholder(value: string): boolean {
  return PLACEHOLDERS.some((pattern) => pattern.test(value));
}
