/** The `auth/*` checks, in report order. */
import type { CheckDefinition } from '../../engine/check.js';
import { stalePassword } from './stale-password.check.js';

export const AUTH_CHECKS: readonly CheckDefinition[] = [stalePassword];
