import { checkTest } from '../../runner/vitest-check.js';
import { lastval } from './lastval.check.js';

checkTest(lastval);
