// Whether a process with this pid exists: how a start tells a dead writer's leftovers (temp files,
// upload parts, memory groups named by pid) from those of one still running.
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, owned by another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
