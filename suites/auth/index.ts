/** The `auth/*` checks, in report order. */
import { stalePassword } from './stale-password.check.js';

export const AUTH_CHECKS = [stalePassword] as const;
