import { checkTest } from '../../runner/vitest-check.js';
import { queueing } from './queueing.check.js';

checkTest(queueing);
