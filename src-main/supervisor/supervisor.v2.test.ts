// Real cgroup v2 runs, where this machine has the memory controller on the unified hierarchy.
import { defineCapTests } from './cap-cases.test-util.js';

defineCapTests(2);
