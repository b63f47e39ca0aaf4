// Real cgroup v1 runs (the CI machine mounts the v1 memory controller; CI runs as root).
import { defineCapTests } from './cap-cases.test-util.js';

defineCapTests(1);
