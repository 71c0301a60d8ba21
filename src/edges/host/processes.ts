/** The processes of this machine, as the workers and their claims need them: whether one is still there. */

/** Whether a process of this machine is still there (one we may not signal is there too). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}
