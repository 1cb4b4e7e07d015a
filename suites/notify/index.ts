/** The `notify/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { listen } from './listen.check.js';

export const NOTIFY_CHECKS: readonly CheckDefinition[] = [listen];
