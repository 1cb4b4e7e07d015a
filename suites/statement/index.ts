/** The `statement/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { transactionBlock } from './transaction-block.check.js';

export const STATEMENT_CHECKS: readonly CheckDefinition[] = [transactionBlock];
