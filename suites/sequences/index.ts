/** The `sequences/*` checks, in report order. */
import { lastval } from './lastval.check.js';

export const SEQUENCES_CHECKS = [lastval] as const;
