import { checkTest } from '../../engine/vitest-check.js';
import { discardAll } from './discard-all.check.js';

checkTest(discardAll);
