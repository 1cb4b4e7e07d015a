import { checkTest } from '../../engine/vitest-check.js';
import { setLeak } from './set-leak.check.js';

checkTest(setLeak);
