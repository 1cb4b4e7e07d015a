/** The `protocol/*` checks, in report order. */
import { negotiation } from './negotiation.check.js';

export const PROTOCOL_CHECKS = [negotiation] as const;
