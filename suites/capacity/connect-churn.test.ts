import { checkTest } from '../../engine/vitest-check.js';
import { connectChurn } from './connect-churn.check.js';

checkTest(connectChurn);
