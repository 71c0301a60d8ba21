/** The processes of this machine, as the workers and their claims need them: whether one is still there, and ending a group. */

/** Whether a process of this machine is still there (one we may not signal is there too). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** Sends `signal` to the process group `leader` leads; false when there is no such group (it is gone already). */
export function signalGroup(leader: number, signal: NodeJS.Signals): boolean {
	try {
		process.kill(-leader, signal);
		return true;
	} catch {
		return false;
	}
}
