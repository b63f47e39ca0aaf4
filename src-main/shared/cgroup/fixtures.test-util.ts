// Real control-file contents for the parser tests. v1: captured on the CI machine (Linux 6.18,
// cgroup v1 memory controller). v2: the formats documented in the kernel's
// Documentation/admin-guide/cgroup-v2.rst, with key order as a 6.x kernel prints them.

/** v1 memory.stat of a live group (captured). */
export const V1_MEMORY_STAT = `cache 28672
rss 1691648
rss_huge 0
shmem 0
mapped_file 0
dirty 20480
writeback 0
workingset_refault_anon 0
workingset_refault_file 0
swap 0
swapcached 0
pgpgin 22911
pgpgout 22491
pgfault 51801
pgmajfault 0
inactive_anon 1507328
active_anon 12288
inactive_file 16384
active_file 12288
unevictable 0
hierarchical_memory_limit 9223372036854771712
hierarchical_memsw_limit 9223372036854771712
total_cache 28672
total_rss 1691648
total_rss_huge 0
total_shmem 0
total_mapped_file 0
total_dirty 20480
total_writeback 0
total_workingset_refault_anon 0
total_workingset_refault_file 0
total_swap 0
total_swapcached 0
total_pgpgin 22911
total_pgpgout 22491
total_pgfault 51801
total_pgmajfault 0
total_inactive_anon 1507328
total_active_anon 12288
total_inactive_file 16384
total_active_file 12288
total_unevictable 0
`;

/** v1 memory.oom_control right after a 64 MiB cap killed a growing node process (captured). */
export const V1_OOM_CONTROL_AFTER_KILL = `oom_kill_disable 0
under_oom 0
oom_kill 1
`;

/** v1 memory.oom_control on kernels before 4.13 (no oom_kill line). */
export const V1_OOM_CONTROL_OLD = `oom_kill_disable 0
under_oom 0
`;

/** v1 memory.limit_in_bytes of an unlimited group (captured; PAGE_COUNTER_MAX pages). */
export const V1_LIMIT_UNLIMITED = '9223372036854771712\n';

/** v2 memory.stat (6.x kernel key set). */
export const V2_MEMORY_STAT = `anon 8630272
file 1056768
kernel 1257472
kernel_stack 98304
pagetables 274432
sec_pagetables 0
percpu 3360
sock 0
vmalloc 8192
shmem 0
zswap 0
zswapped 0
file_mapped 811008
file_dirty 0
file_writeback 0
swapcached 0
anon_thp 0
file_thp 0
shmem_thp 0
inactive_anon 8597504
active_anon 32768
inactive_file 1044480
active_file 12288
unevictable 0
slab_reclaimable 170096
slab_unreclaimable 613752
slab 783848
workingset_refault_anon 0
workingset_refault_file 0
workingset_activate_anon 0
workingset_activate_file 0
workingset_restore_anon 0
workingset_restore_file 0
workingset_nodereclaim 0
pgscan 0
pgsteal 0
pgscan_kswapd 0
pgscan_direct 0
pgscan_khugepaged 0
pgsteal_kswapd 0
pgsteal_direct 0
pgsteal_khugepaged 0
pgfault 5313
pgmajfault 0
pgrefill 0
pgactivate 3
pgdeactivate 0
pglazyfree 0
pglazyfreed 0
zswpin 0
zswpout 0
zswpwb 0
thp_fault_alloc 0
thp_collapse_alloc 0
thp_swpout 0
thp_swpout_fallback 0
`;

/** v2 memory.stat of a 5.4-era kernel: no `kernel` line yet (added in 5.18). */
export const V2_MEMORY_STAT_5_4 = `anon 846118912
file 2321530880
kernel_stack 10895360
percpu 0
sock 1212416
shmem 1933574144
file_mapped 1870290944
file_dirty 12288
file_writeback 0
anon_thp 0
inactive_anon 2602876928
active_anon 176771072
inactive_file 188608512
active_file 199348224
unevictable 0
slab_reclaimable 11839688
slab_unreclaimable 7409400
slab 19249088
pgfault 2563565
pgmajfault 15
`;

/** v2 memory.events after an OOM kill under memory.oom.group=1 (kernel ≥ 5.17). */
export const V2_MEMORY_EVENTS_OOM = `low 0
high 0
max 312
oom 1
oom_kill 2
oom_group_kill 1
`;

/** v2 memory.events on a kernel before 5.17 (no oom_group_kill line). */
export const V2_MEMORY_EVENTS_OLD = `low 0
high 0
max 0
oom 0
oom_kill 0
`;
