import { checkTest } from '../../engine/vitest-check.js';
import { searchPathLeak } from './search-path-leak.check.js';

checkTest(searchPathLeak);
