import { checkTest } from '../../runner/vitest-check.js';
import { abandoned } from './abandoned.check.js';

checkTest(abandoned);
