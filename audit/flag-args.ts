/**
 * What `pooltest audit` and `pooltest watch` read from their command lines the same way: a
 * flag with its value inline (`--json=out.json`) or after it, and limits that must be positive
 * whole numbers.
 */
import { PooltestError } from '../engine/errors.js';

/** `--flag=value` as the flag and its inline value; anything else as itself, with no value. */
export function splitFlag(raw: string): { flag: string; inline: string | undefined } {
  const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
  return eq === -1 ? { flag: raw, inline: undefined } : { flag: raw.slice(0, eq), inline: raw.slice(eq + 1) };
}

/** `value` as a positive whole number, or BAD_ARGUMENTS naming `flag` and the value. */
export function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new PooltestError('BAD_ARGUMENTS', `${flag} must be a positive whole number, not "${value}"`);
  return n;
}
