import { checkTest } from '../../runner/vitest-check.js';
import { stalePassword } from './stale-password.check.js';

checkTest(stalePassword);
