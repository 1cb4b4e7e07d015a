import { checkTest } from '../../engine/vitest-check.js';
import { lastval } from './lastval.check.js';

checkTest(lastval);
