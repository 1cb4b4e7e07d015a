import { checkTest } from '../../runner/vitest-check.js';
import { discardAll } from './discard-all.check.js';

checkTest(discardAll);
