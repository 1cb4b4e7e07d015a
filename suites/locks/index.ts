/** The `locks/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { advisorySession } from './advisory-session.check.js';
import { advisoryXact } from './advisory-xact.check.js';

export const LOCKS_CHECKS: readonly CheckDefinition[] = [advisorySession, advisoryXact];
