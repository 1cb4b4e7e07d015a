/** The `pipeline/*` checks, in report order. */
import { disconnect } from './disconnect.check.js';
import { error } from './error.check.js';
import { prepared } from './prepared.check.js';
import { transactions } from './transactions.check.js';

export const PIPELINE_CHECKS = [transactions, prepared, error, disconnect] as const;
