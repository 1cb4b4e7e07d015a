import { checkTest } from '../../runner/vitest-check.js';
import { listen } from './listen.check.js';

checkTest(listen);
