import { checkTest } from '../../runner/vitest-check.js';
import { resetOnDisconnect } from './reset-on-disconnect.check.js';

checkTest(resetOnDisconnect);
