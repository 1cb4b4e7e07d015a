import { checkTest } from '../../engine/vitest-check.js';
import { roleLeak } from './role-leak.check.js';

checkTest(roleLeak);
