/** The `locks/*` checks, in report order. */
import { advisorySession } from './advisory-session.check.js';
import { advisoryXact } from './advisory-xact.check.js';

export const LOCKS_CHECKS = [advisorySession, advisoryXact] as const;
