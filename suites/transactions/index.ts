/** The `transactions/*` checks, in report order. */
import { abandoned } from './abandoned.check.js';

export const TRANSACTIONS_CHECKS = [abandoned] as const;
