/** The `transactions/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { abandoned } from './abandoned.check.js';

export const TRANSACTIONS_CHECKS: readonly CheckDefinition[] = [abandoned];
