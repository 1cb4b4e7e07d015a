/** The `sequences/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { lastval } from './lastval.check.js';

export const SEQUENCES_CHECKS: readonly CheckDefinition[] = [lastval];
