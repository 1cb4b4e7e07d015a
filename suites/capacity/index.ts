/** The `capacity/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { burst } from './burst.check.js';
import { connectChurn } from './connect-churn.check.js';
import { multiplexing } from './multiplexing.check.js';
import { queueing } from './queueing.check.js';

export const CAPACITY_CHECKS: readonly CheckDefinition[] = [queueing, multiplexing, burst, connectChurn];
