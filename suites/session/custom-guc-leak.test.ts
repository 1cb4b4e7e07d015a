import { checkTest } from '../../engine/vitest-check.js';
import { customGucLeak } from './custom-guc-leak.check.js';

checkTest(customGucLeak);
