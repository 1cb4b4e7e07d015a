import { checkTest } from '../../engine/vitest-check.js';
import { multiplexing } from './multiplexing.check.js';

checkTest(multiplexing);
