import { checkTest } from '../../runner/vitest-check.js';
import { disconnect } from './disconnect.check.js';

checkTest(disconnect);
