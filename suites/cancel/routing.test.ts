import { checkTest } from '../../runner/vitest-check.js';
import { routing } from './routing.check.js';

checkTest(routing);
