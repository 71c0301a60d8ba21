/**
 * A real git server on the loopback address, started and stopped by the test: Debian's `git daemon` serving the bare
 * repositories of one folder, pushes allowed. Stopping it cuts the network (a push or a fetch then fails to connect);
 * starting it again on the same port brings the remote back. Its access hook (run by the daemon before each
 * connection) can refuse every connection from the n-th on, or run a git command just before the n-th: the network cut,
 * or another session's push, between two steps of one of our commands.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A free TCP port on the loopback address, as the kernel hands one out. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			const port = typeof address === "object" && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

/** Whether `git ls-remote` reaches `url` now. */
function answers(url: string): boolean {
	try {
		execFileSync("git", ["ls-remote", url], { stdio: "ignore", env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } });
		return true;
	} catch {
		return false;
	}
}

export interface GitServer {
	/** The folder holding the served bare repositories. */
	base: string;
	port: number;
	/** The `git://` URL of a served repository. */
	url(name: string): string;
	/** A bare repository made in the served folder, holding `from`'s branch `branch` when given; its path. */
	bare(name: string, from?: { repo: string; branch: string }): string;
	/** Stops the server (the network is cut); resolves once it has exited. */
	stop(): Promise<void>;
	/** Starts it again on the same port; resolves once it answers. */
	start(): Promise<void>;
	/**
	 * Serves the next `served` connections to its repositories, then refuses each one after (git's client reports the
	 * daemon's "access denied": nothing reached), until `serveAll()`.
	 */
	refuseAfter(served: number): void;
	/** Runs `git <args>` in the served folder just before serving the `nth` connection from now (1: the next). */
	beforeConnection(nth: number, args: readonly string[]): void;
	/** Runs `git <args>` in the served folder just before serving the `nth` push from now (1: the next), whatever reads come between. */
	beforePush(nth: number, args: readonly string[]): void;
	/** Serves every connection again, and forgets what `beforeConnection` was told. */
	serveAll(): void;
	/** Stops it and removes its folder. */
	close(): Promise<void>;
}

/**
 * The daemon's access hook: counts the connections to the served repositories since the gate was armed (the probe
 * repository the helper waits on is never counted), and the pushes among them apart; runs the git command written for
 * this connection's count or this push's, and refuses from the count written in `refuse-from`.
 */
function accessHook(base: string, gate: string): string {
	return [
		"#!/bin/sh",
		`[ -d '${gate}' ] || exit 0`,
		'case "$2" in */probe.git) exit 0;; esac',
		`n=$(( $(cat '${gate}/count') + 1 ))`,
		`echo "$n" > '${gate}/count'`,
		`[ -f '${gate}/run-'"$n" ] && xargs -0 git -C '${base}' < '${gate}/run-'"$n" > /dev/null 2>&1`,
		'if [ "$1" = receive-pack ]; then',
		// The daemon runs its hook in the repository (GIT_DIR=.): a push's command names its own.
		"  unset GIT_DIR",
		`  p=$(( $(cat '${gate}/pushes') + 1 ))`,
		`  echo "$p" > '${gate}/pushes'`,
		`  [ -f '${gate}/push-'"$p" ] && xargs -0 git -C '${base}' < '${gate}/push-'"$p" > /dev/null 2>&1`,
		"fi",
		`[ -f '${gate}/refuse-from' ] && [ "$n" -ge "$(cat '${gate}/refuse-from')" ] && exit 1`,
		"exit 0",
		"",
	].join("\n");
}

/** The connections (or, from `pushes`, the pushes) the armed gate has counted so far. */
const readCount = (gate: string, counter = "count"): number => Number(readFileSync(join(gate, counter), "utf8").trim());

async function untilAnswers(url: string): Promise<void> {
	for (let attempt = 0; attempt < 200; attempt++) {
		if (answers(url)) return;
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
	throw new Error(`git daemon did not answer at ${url}`);
}

/** The daemon's process on `port`, serving `base`: started until it answers, stopped with every connection it forked. */
function daemonProcess(base: string, port: number, hook: string, pushes: boolean) {
	let daemon: ChildProcess | undefined;
	const args = [
		"daemon",
		"--listen=127.0.0.1",
		`--port=${port}`,
		"--reuseaddr",
		...(pushes ? ["--enable=receive-pack"] : []),
		"--export-all",
		`--access-hook=${hook}`,
		`--base-path=${base}`,
		base,
	];
	return {
		async start() {
			daemon = spawn("git", args, { stdio: "ignore", detached: true });
			await untilAnswers(`git://127.0.0.1:${port}/probe.git`);
		},
		async stop() {
			const running = daemon;
			daemon = undefined;
			if (!running?.pid || running.exitCode !== null) return;
			const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
			// Its group: the daemon and the child it forked for each connection still open.
			process.kill(-running.pid, "SIGKILL");
			await exited;
		},
	};
}

/**
 * What the access hook reads in `gate`: connections refused from the n-th on, git commands run before the n-th
 * connection or the n-th push.
 */
function gateControls(gate: string): Pick<GitServer, "refuseAfter" | "beforeConnection" | "beforePush" | "serveAll"> {
	const armed = () => {
		if (existsSync(gate)) return;
		mkdirSync(gate, { recursive: true });
		writeFileSync(join(gate, "count"), "0");
		writeFileSync(join(gate, "pushes"), "0");
	};
	return {
		refuseAfter(served) {
			armed();
			writeFileSync(join(gate, "refuse-from"), String(readCount(gate) + served + 1));
		},
		beforeConnection(nth, args) {
			armed();
			writeFileSync(join(gate, `run-${readCount(gate) + nth}`), args.join("\0"));
		},
		beforePush(nth, args) {
			armed();
			writeFileSync(join(gate, `push-${readCount(gate, "pushes") + nth}`), args.join("\0"));
		},
		serveAll() {
			rmSync(gate, { recursive: true, force: true });
		},
	};
}

/**
 * Starts `git daemon` on a free loopback port, serving a fresh folder; resolves once it answers. `pushes: false` serves
 * it read-only (a remote without push rights).
 */
export async function startGitServer({ pushes = true } = {}): Promise<GitServer> {
	const base = realpathSync(mkdtempSync(join(tmpdir(), "til-done-served-")));
	const hookDir = realpathSync(mkdtempSync(join(tmpdir(), "til-done-daemon-hook-")));
	const hook = join(hookDir, "access-hook");
	writeFileSync(hook, accessHook(base, join(hookDir, "gate")));
	chmodSync(hook, 0o755);
	mkdirSync(join(base, "probe.git"));
	execFileSync("git", ["init", "-q", "--bare", join(base, "probe.git")]);
	const port = await freePort();
	const { start, stop } = daemonProcess(base, port, hook, pushes);
	await start();
	return {
		base,
		port,
		url: (name: string) => `git://127.0.0.1:${port}/${name}`,
		bare(name, from) {
			const path = join(base, name);
			execFileSync("git", ["init", "-q", "--bare", "-b", from?.branch ?? "main", path]);
			if (from)
				execFileSync("git", ["push", "-q", path, `${from.branch}:refs/heads/${from.branch}`], { cwd: from.repo });
			return path;
		},
		stop,
		start,
		...gateControls(join(hookDir, "gate")),
		async close() {
			await stop();
			rmSync(base, { recursive: true, force: true });
			rmSync(hookDir, { recursive: true, force: true });
		},
	};
}
