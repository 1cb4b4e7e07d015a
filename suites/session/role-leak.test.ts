import { checkTest } from '../../runner/vitest-check.js';
import { roleLeak } from './role-leak.check.js';

checkTest(roleLeak);
