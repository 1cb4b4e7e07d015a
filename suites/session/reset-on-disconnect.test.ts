import { checkTest } from '../../engine/vitest-check.js';
import { resetOnDisconnect } from './reset-on-disconnect.check.js';

checkTest(resetOnDisconnect);
