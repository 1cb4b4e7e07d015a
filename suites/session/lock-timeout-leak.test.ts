import { checkTest } from '../../runner/vitest-check.js';
import { lockTimeoutLeak } from './lock-timeout-leak.check.js';

checkTest(lockTimeoutLeak);
