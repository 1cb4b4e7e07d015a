/** The `statement/*` checks, in report order. */
import { transactionBlock } from './transaction-block.check.js';

export const STATEMENT_CHECKS = [transactionBlock] as const;
