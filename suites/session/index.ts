/** The `session/*` checks, in report order. */
import { customGucLeak } from './custom-guc-leak.check.js';
import { discardAll } from './discard-all.check.js';
import { lockTimeoutLeak } from './lock-timeout-leak.check.js';
import { resetOnDisconnect } from './reset-on-disconnect.check.js';
import { roleLeak } from './role-leak.check.js';
import { searchPathLeak } from './search-path-leak.check.js';
import { setLeak } from './set-leak.check.js';
import { setLocal } from './set-local.check.js';
import { trackedParameter } from './tracked-parameter.check.js';

export const SESSION_CHECKS = [
  setLeak,
  lockTimeoutLeak,
  searchPathLeak,
  customGucLeak,
  roleLeak,
  trackedParameter,
  setLocal,
  resetOnDisconnect,
  discardAll,
] as const;
