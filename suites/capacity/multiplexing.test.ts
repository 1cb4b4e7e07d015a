import { checkTest } from '../../runner/vitest-check.js';
import { multiplexing } from './multiplexing.check.js';

checkTest(multiplexing);
