/** The `capacity/*` checks, in report order. */
import { burst } from './burst.check.js';
import { connectChurn } from './connect-churn.check.js';
import { multiplexing } from './multiplexing.check.js';
import { queueing } from './queueing.check.js';

export const CAPACITY_CHECKS = [queueing, multiplexing, burst, connectChurn] as const;
