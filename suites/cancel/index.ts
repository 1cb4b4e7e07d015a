/** The `cancel/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { routing } from './routing.check.js';

export const CANCEL_CHECKS: readonly CheckDefinition[] = [routing];
