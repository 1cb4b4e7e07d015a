import { checkTest } from '../../runner/vitest-check.js';
import { burst } from './burst.check.js';

checkTest(burst);
