import { checkTest } from '../../engine/vitest-check.js';
import { queueing } from './queueing.check.js';

checkTest(queueing);
