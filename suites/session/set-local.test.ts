import { checkTest } from '../../engine/vitest-check.js';
import { setLocal } from './set-local.check.js';

checkTest(setLocal);
