/**
 * The catalogue in report order, area by area. Each area's `index.ts` lists its checks; each
 * check's definition is `<area>/<behaviour>.check.ts` with its Vitest file beside it.
 */
import { claimIndex } from '../engine/record/audit-claims.js';
import { AUTH_CHECKS } from './auth/index.js';
import { CANCEL_CHECKS } from './cancel/index.js';
import { CAPACITY_CHECKS } from './capacity/index.js';
import { COPY_CHECKS } from './copy/index.js';
import { CURSORS_CHECKS } from './cursors/index.js';
import { LOCKS_CHECKS } from './locks/index.js';
import { NOTIFY_CHECKS } from './notify/index.js';
import { PIPELINE_CHECKS } from './pipeline/index.js';
import { PREPARED_CHECKS } from './prepared/index.js';
import { PROTOCOL_CHECKS } from './protocol/index.js';
import { SEQUENCES_CHECKS } from './sequences/index.js';
import { SESSION_CHECKS } from './session/index.js';
import { STATEMENT_CHECKS } from './statement/index.js';
import { TEMP_CHECKS } from './temp/index.js';
import { TRANSACTIONS_CHECKS } from './transactions/index.js';

export const CATALOGUE = [
  ...SESSION_CHECKS,
  ...TEMP_CHECKS,
  ...LOCKS_CHECKS,
  ...NOTIFY_CHECKS,
  ...PREPARED_CHECKS,
  ...CURSORS_CHECKS,
  ...SEQUENCES_CHECKS,
  ...TRANSACTIONS_CHECKS,
  ...STATEMENT_CHECKS,
  ...CANCEL_CHECKS,
  ...CAPACITY_CHECKS,
  ...AUTH_CHECKS,
  ...PROTOCOL_CHECKS,
  ...PIPELINE_CHECKS,
  ...COPY_CHECKS,
] as const;

/** A check of this catalogue, with its literal id and labels. */
export type CatalogueCheck = (typeof CATALOGUE)[number];

/**
 * Which check the audit and watch ask about each statement kind, setting and built-in function
 * they recognise, from the checks' own `audit.claims`. Built with the catalogue, so a kind
 * claimed twice or by nobody stops pooltest from loading, with the list of what is wrong.
 */
export const CLAIMS = claimIndex<CatalogueCheck['id']>(CATALOGUE);
