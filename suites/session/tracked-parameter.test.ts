import { checkTest } from '../../runner/vitest-check.js';
import { trackedParameter } from './tracked-parameter.check.js';

checkTest(trackedParameter);
