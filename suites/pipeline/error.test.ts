import { checkTest } from '../../runner/vitest-check.js';
import { error } from './error.check.js';

checkTest(error);
