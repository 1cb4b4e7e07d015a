import { checkTest } from '../../engine/vitest-check.js';
import { listen } from './listen.check.js';

checkTest(listen);
