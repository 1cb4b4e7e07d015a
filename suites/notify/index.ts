/** The `notify/*` checks, in report order. */
import { listen } from './listen.check.js';

export const NOTIFY_CHECKS = [listen] as const;
