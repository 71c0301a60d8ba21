/**
 * Whose session this is: the first instance to start a session holds the process, any other is nested; a process
 * whose environment a session of ours marked is a child; a guest drives none of the branch it inherited, and the
 * exit status and stderr stay the process's own session's.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { inheritsBranch, lastSnapshot, ownBranch } from "../../src/core/rules/branch.ts";
import { DEFAULT_CONFIG } from "../../src/core/rules/settings.ts";
import { isGuest, PARENT_MARKER, releaseRole, takeRole } from "../../src/edges/host/role.ts";
import { tell } from "../../src/edges/host/tell.ts";
import { beginSession, getRole, inSession, sessionOf } from "../../src/state.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";

const first = {};
const second = {};

afterEach(() => {
	releaseRole(first);
	releaseRole(second);
	vi.unstubAllEnvs();
});

describe("the first instance to start a session holds the process; another is nested", () => {
	it("holds it until its session ends, then the next one to start does", () => {
		expect(takeRole(first)).toBe("own");
		expect(takeRole(second)).toBe("nested");
		expect(takeRole(first)).toBe("own");
		releaseRole(first);
		expect(takeRole(second)).toBe("own");
	});

	it("marks the environment with the process's id for the processes it starts", () => {
		takeRole(first);
		expect(process.env[PARENT_MARKER]).toBe(String(process.pid));
	});

	it("a guest is anything but the user's own session", () => {
		expect([isGuest("own"), isGuest("child"), isGuest("nested")]).toEqual([false, true, true]);
	});
});

describe("a session in a process a session of ours started is a child", () => {
	it("by the marker another process left in the environment", async () => {
		vi.resetModules();
		delete (globalThis as Record<symbol, unknown>)[Symbol.for("pi-til-done.process-ownership")];
		vi.stubEnv(PARENT_MARKER, "1");
		const role = await import("../../src/edges/host/role.ts");
		const instance = {};
		expect(role.takeRole(instance)).toBe("child");
		// A new session of the same process (a /new, a reload) is still a child: the marker it found is kept.
		role.releaseRole(instance);
		expect(role.takeRole(instance)).toBe("child");
		role.releaseRole(instance);
	});
});

describe("a guest's own part of a branch begins after the boundary it wrote", () => {
	const write = (text: string) => ({
		type: "message",
		message: {
			role: "toolResult",
			toolName: "write_todos",
			details: { action: "write", todos: [{ text, status: "not_started" }] },
		},
	});
	const boundary = (sessionId: string) => ({ type: "custom", customType: "til-done-guest", data: { sessionId } });

	it("the parent's list before the boundary is not the guest's", () => {
		expect(lastSnapshot(ownBranch([write("the parent's"), boundary("child")]))).toEqual([]);
		expect(lastSnapshot(ownBranch([write("the parent's"), boundary("child"), write("mine")]))).toEqual([
			{ text: "mine", status: "not_started" },
		]);
	});

	it("a guest inherits a branch with entries and no boundary of its own; resumed on its own branch, it inherits nothing new", () => {
		expect(inheritsBranch([], "child")).toBe(false);
		expect(inheritsBranch([write("the parent's")], "child")).toBe(true);
		expect(inheritsBranch([write("the parent's"), boundary("child"), write("mine")], "child")).toBe(false);
		expect(inheritsBranch([boundary("child"), write("mine")], "grandchild")).toBe(true);
	});
});

describe("only the process's own sessions write to its stderr", () => {
	it("a nested session without a UI tells nobody", () => {
		const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		const { ctx } = createFakeCtx({ mode: "print", hasUI: false });
		const nested = sessionOf({});
		inSession(nested, () => {
			expect(getRole()).toBe("nested");
			tell(ctx, "a line of the child's");
			beginSession("child", DEFAULT_CONFIG);
			tell(ctx, "a child process's own line");
		});
		expect(stderr.mock.calls).toEqual([["[til-done] a child process's own line\n"]]);
		stderr.mockRestore();
	});
});
