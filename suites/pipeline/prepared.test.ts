import { checkTest } from '../../runner/vitest-check.js';
import { prepared } from './prepared.check.js';

checkTest(prepared);
