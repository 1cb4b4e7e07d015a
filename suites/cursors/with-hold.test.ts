import { checkTest } from '../../engine/vitest-check.js';
import { withHold } from './with-hold.check.js';

checkTest(withHold);
