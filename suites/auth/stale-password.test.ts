import { checkTest } from '../../engine/vitest-check.js';
import { stalePassword } from './stale-password.check.js';

checkTest(stalePassword);
