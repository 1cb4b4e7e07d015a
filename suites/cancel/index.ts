/** The `cancel/*` checks, in report order. */
import { routing } from './routing.check.js';

export const CANCEL_CHECKS = [routing] as const;
