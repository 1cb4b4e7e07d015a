/** The `cursors/*` checks, in report order. */
import { withHold } from './with-hold.check.js';

export const CURSORS_CHECKS = [withHold] as const;
