/** The `locks/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { advisorySession } from './advisory-session.check.js';

export const LOCKS_CHECKS: readonly CheckDefinition[] = [advisorySession];
