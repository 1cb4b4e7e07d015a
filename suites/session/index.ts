/** The `session/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { setLeak } from './set-leak.check.js';
import { setLocal } from './set-local.check.js';
import { trackedParameter } from './tracked-parameter.check.js';

export const SESSION_CHECKS: readonly CheckDefinition[] = [setLeak, trackedParameter, setLocal];
