import { checkTest } from '../../engine/vitest-check.js';
import { protocolNamed } from './protocol-named.check.js';

checkTest(protocolNamed);
