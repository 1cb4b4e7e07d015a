import { checkTest } from '../../runner/vitest-check.js';
import { close } from './close.check.js';

checkTest(close);
