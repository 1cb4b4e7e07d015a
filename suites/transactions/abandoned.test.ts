import { checkTest } from '../../engine/vitest-check.js';
import { abandoned } from './abandoned.check.js';

checkTest(abandoned);
