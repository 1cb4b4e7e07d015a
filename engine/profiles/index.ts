/**
 * The built-in profiles: documented expectations per pooler, mode and version. A check with no
 * expectation in a profile is reported, not asserted.
 */
import { PooltestError } from '../errors.js';
import type { Profile } from '../types.js';
import { direct } from './direct.js';
import { pgbouncerSession, pgbouncerStatement, pgbouncerTransaction } from './pgbouncer.js';
import { pgpool } from './pgpool.js';

export const PROFILES: readonly Profile[] = [direct, pgbouncerTransaction, pgbouncerSession, pgbouncerStatement, pgpool];

export function findProfile(name: string): Profile {
  const p = PROFILES.find((x) => x.name === name);
  if (!p) throw new PooltestError('UNKNOWN_PROFILE', `unknown profile "${name}"; known: ${PROFILES.map((x) => x.name).join(', ')}`);
  return p;
}
