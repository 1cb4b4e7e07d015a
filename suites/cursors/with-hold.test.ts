import { checkTest } from '../../runner/vitest-check.js';
import { withHold } from './with-hold.check.js';

checkTest(withHold);
