// Types shared by the cgroup parsers, the supervisor and the report.

export type CgroupVersion = 1 | 2;
