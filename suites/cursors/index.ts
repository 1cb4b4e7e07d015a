/** The `cursors/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { withHold } from './with-hold.check.js';

export const CURSORS_CHECKS: readonly CheckDefinition[] = [withHold];
