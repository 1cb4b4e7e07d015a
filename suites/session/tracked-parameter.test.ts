import { checkTest } from '../../engine/vitest-check.js';
import { trackedParameter } from './tracked-parameter.check.js';

checkTest(trackedParameter);
