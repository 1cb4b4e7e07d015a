import { checkTest } from '../../engine/vitest-check.js';
import { routing } from './routing.check.js';

checkTest(routing);
