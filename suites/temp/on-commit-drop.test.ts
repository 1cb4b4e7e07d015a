import { checkTest } from '../../runner/vitest-check.js';
import { onCommitDrop } from './on-commit-drop.check.js';

checkTest(onCommitDrop);
