import { checkTest } from '../../runner/vitest-check.js';
import { inOut } from './in-out.check.js';

checkTest(inOut);
