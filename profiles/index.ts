/**
 * The built-in profiles: documented expectations per pooler, mode and version. A check with no
 * expectation in a profile is reported, not asserted. One file per pooler family; the labels an
 * expectation may name are in ../suites/labels.ts, and validate-profile.ts says what a well-formed
 * profile is (the tests hold every profile here to it).
 */
import { PooltestError } from '../engine/record/errors.js';
import type { CatalogueProfile } from './catalogue-profile.js';
import { direct } from './direct.js';
import { odysseySession, odysseyTransaction } from './odyssey.js';
import { pgagroalSession, pgagroalTransaction } from './pgagroal.js';
import { pgbouncerSession, pgbouncerStatement, pgbouncerTransaction } from './pgbouncer.js';
import {
  pgbouncer121Transaction,
  pgbouncer122Transaction,
  pgbouncer124Transaction,
  pgbouncer125Session,
  pgbouncer125Transaction,
  pgbouncer125TransactionNoPrepared,
  pgbouncer126Transaction,
} from './pgbouncer-versions.js';
import { pgcatTransaction } from './pgcat.js';
import { pgdogTransaction } from './pgdog.js';
import { pgpool } from './pgpool.js';
import { rdsProxy } from './rds-proxy.js';
import { supavisorTransaction } from './supavisor.js';

export { profileProblems, profilesProblems, provenanceProblems } from './validate-profile.js';

/** In `--list-profiles` order: the profiles the fixtures run first, then the others by family. */
export const PROFILES: readonly CatalogueProfile[] = [
  direct,
  pgbouncerTransaction,
  pgbouncerSession,
  pgbouncerStatement,
  pgpool,
  pgbouncer125Transaction,
  pgbouncer125TransactionNoPrepared,
  pgbouncer125Session,
  odysseyTransaction,
  odysseySession,
  pgagroalTransaction,
  pgagroalSession,
  pgbouncer121Transaction,
  pgbouncer122Transaction,
  pgbouncer124Transaction,
  pgbouncer126Transaction,
  pgcatTransaction,
  pgdogTransaction,
  supavisorTransaction,
  rdsProxy,
];

/** The names `--profile` accepts, in list order. */
export function profileIds(): string[] {
  return PROFILES.map((p) => p.name);
}

export function findProfile(name: string): CatalogueProfile {
  const p = PROFILES.find((x) => x.name === name);
  if (!p) throw new PooltestError('UNKNOWN_PROFILE', `unknown profile "${name}"; known: ${profileIds().join(', ')}`);
  return p;
}
