import { checkTest } from '../../runner/vitest-check.js';
import { setLocal } from './set-local.check.js';

checkTest(setLocal);
