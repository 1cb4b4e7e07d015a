/** The `copy/*` checks, in report order. */
import { inOut } from './in-out.check.js';

export const COPY_CHECKS = [inOut] as const;
