import { checkTest } from '../../runner/vitest-check.js';
import { connectChurn } from './connect-churn.check.js';

checkTest(connectChurn);
