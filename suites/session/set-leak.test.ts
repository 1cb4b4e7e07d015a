import { checkTest } from '../../runner/vitest-check.js';
import { setLeak } from './set-leak.check.js';

checkTest(setLeak);
