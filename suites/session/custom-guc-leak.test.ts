import { checkTest } from '../../runner/vitest-check.js';
import { customGucLeak } from './custom-guc-leak.check.js';

checkTest(customGucLeak);
