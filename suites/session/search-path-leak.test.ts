import { checkTest } from '../../runner/vitest-check.js';
import { searchPathLeak } from './search-path-leak.check.js';

checkTest(searchPathLeak);
