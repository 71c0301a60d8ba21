/**
 * Plans under any sequence of the model's writes (every mode, links that hold or not) and edits and the user's moves
 * and removals, through the real extension: every link keeps pointing at the same item, a write is refused exactly
 * when its links do not hold (and then changes nothing), and no continuation is ever sent while no item is ready.
 */

import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import tilDone from "../../src/index.ts";
import { getTodos as readTodos, resetState } from "../../src/state.ts";
import { createFakeCtx } from "../helpers/fake-ctx.ts";
import { createFakePi } from "../helpers/fake-pi.ts";
import { type LinksById, linksById, linksHold, someItemWorkable } from "../helpers/plan-oracle.ts";
import { fakeTimersQuietStderr } from "../helpers/quiet-timers.ts";
import { inInstance } from "../helpers/store.ts";

type WriteMode = "replace" | "append" | "insert";
interface NewItem {
	waits: number[];
	parent?: number;
	/** Whether a pick may stand as a raw index, possibly out of the list. */
	raw: boolean;
}
type Op =
	| { kind: "write"; mode: WriteMode; at: number; items: NewItem[] }
	| { kind: "remove"; at: number }
	| { kind: "move"; from: number; to: number }
	| { kind: "edit"; action: "start" | "complete" | "abandon"; at: number }
	| { kind: "runEnd" }
	| { kind: "tick" };

/**
 * Mostly links to earlier items of the list the write leaves (each pick taken modulo the item's own index), now and
 * then a raw index that may be itself or out of the list; cycles through a parent and nested subtasks come up by
 * chance.
 */
const newItem: fc.Arbitrary<NewItem> = fc.record({
	waits: fc.oneof(
		{ weight: 2, arbitrary: fc.constant<number[]>([]) },
		{ weight: 3, arbitrary: fc.array(fc.nat(1000), { minLength: 1, maxLength: 2 }) },
	),
	parent: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat(1000) }),
	raw: fc.boolean(),
});

/** The links of a new item at index `self` as indices into a list of `length` items. */
function indicesOf(item: NewItem, self: number, length: number): { waits: number[]; parent?: number } {
	const wild = (pick: number) => item.raw && pick % 5 === 0;
	// The first item has nothing earlier to point at: only a wild pick gives it a link.
	const picks = (list: readonly number[]) => (self === 0 ? list.filter(wild) : list);
	const at = (pick: number) => (wild(pick) ? pick % (length + 2) : pick % self);
	const waits = picks(item.waits).map(at);
	const [parent] = picks(item.parent === undefined ? [] : [item.parent]).map(at);
	return parent === undefined ? { waits } : { waits, parent };
}

/** Where the `n`th new item of a write lands in the list it leaves. */
function landsAt(mode: WriteMode, at: number, length: number, n: number): number {
	if (mode === "replace") return n;
	return (mode === "append" ? length : at) + n;
}

const op: fc.Arbitrary<Op> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant("write" as const),
			mode: fc.constantFrom<WriteMode>("replace", "append", "insert"),
			at: fc.nat(10),
			items: fc.array(newItem, { minLength: 1, maxLength: 4 }),
		}),
	},
	fc.record({ kind: fc.constant("remove" as const), at: fc.nat(10) }),
	fc.record({ kind: fc.constant("move" as const), from: fc.nat(10), to: fc.nat(10) }),
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant("edit" as const),
			action: fc.constantFrom("start" as const, "complete" as const, "complete" as const, "abandon" as const),
			at: fc.nat(10),
		}),
	},
	{ weight: 3, arbitrary: fc.constant({ kind: "runEnd" as const }) },
	{ weight: 3, arbitrary: fc.constant({ kind: "tick" as const }) },
);

/** The API object of the extension instance under test: its part of the store is what the checks read. */
let instance: object = {};
const getTodos = () => inInstance(instance, readTodos);

/** The real extension after `session_start`, with a 1 s countdown; every item's text is its id. */
async function start() {
	resetState();
	const pi = createFakePi();
	instance = pi.api;
	pi.flagValues.set("til-done-countdown", "1");
	tilDone(pi.api);
	const fake = createFakeCtx({ mode: "rpc" });
	const fire = (event: string, payload: Record<string, unknown> = {}) => pi.fire(event, payload, fake.ctx);
	const tool = async (name: string, params: Record<string, unknown>) =>
		(await pi.tools.get(name)?.execute("call", params as never, undefined, undefined, fake.ctx)) as
			| { details?: { error?: string } }
			| undefined;
	const command = (args: string) => pi.commands.get("todos")?.handler(args, fake.commandCtx);
	await fire("session_start", { reason: "startup" });
	await fire("input", { source: "rpc", text: "go" });
	return { pi, fire, tool, command };
}

/** What the oracle holds: the ids in list order and each id's links. */
interface Model {
	order: string[];
	links: Map<string, LinksById>;
}

/** The order and links a write would leave, with every item's links as indices into that order. */
function proposed(model: Model, write: Extract<Op, { kind: "write" }>, ids: string[]) {
	const at = write.at % (model.order.length + 1);
	const kept = write.mode === "replace" ? [] : model.order;
	const order = write.mode === "insert" ? [...kept.slice(0, at), ...ids, ...kept.slice(at)] : [...kept, ...ids];
	const asIndices = new Map<string, { waits: number[]; parent?: number }>();
	for (const id of kept) {
		const links = model.links.get(id) ?? { waits: [] };
		const parent = links.parent === undefined ? undefined : order.indexOf(links.parent);
		asIndices.set(id, { waits: links.waits.map((wait) => order.indexOf(wait)), parent });
	}
	for (const [n, item] of write.items.entries()) {
		asIndices.set(ids[n] as string, indicesOf(item, landsAt(write.mode, at, model.order.length, n), order.length));
	}
	return { at, order, asIndices };
}

/** Links as `write_todos` takes them. */
const linksOf = (links: { waits: number[]; parent?: number } | undefined) => ({
	blockedBy: links?.waits ?? [],
	parent: links?.parent,
});

/** The oracle's links by id for `order` and index links. */
function byId(order: readonly string[], asIndices: ReadonlyMap<string, { waits: number[]; parent?: number }>) {
	return new Map(
		order.map((id) => {
			const { waits, parent } = asIndices.get(id) ?? { waits: [] };
			const ids = waits.map((at) => order[at] as string).sort();
			return [id, parent === undefined ? { waits: ids } : { waits: ids, parent: order[parent] as string }];
		}),
	);
}

fakeTimersQuietStderr();

describe("every link keeps pointing at the same item, whatever is written, moved or removed", () => {
	it("matches a model of the links by item identity after every step", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 25 }), async (ops) => {
				const { tool, command } = await start();
				let model: Model = { order: [], links: new Map() };
				let next = 0;
				for (const step of ops) {
					const length = model.order.length;
					if (step.kind === "write") {
						const ids = step.items.map(() => `t${next++}`);
						const plan = proposed(model, step, ids);
						const todos = ids.map((id) => ({
							text: id,
							...linksOf(plan.asIndices.get(id)),
						}));
						const params = { mode: step.mode, todos, ...(step.mode === "insert" ? { index: plan.at } : {}) };
						const result = await tool("write_todos", params);
						const holds = linksHold(plan.order, plan.asIndices);
						expect(result?.details?.error === undefined, JSON.stringify(step)).toBe(holds);
						if (holds) model = { order: plan.order, links: byId(plan.order, plan.asIndices) };
					} else if (step.kind === "remove" && length > 0) {
						const gone = model.order[step.at % length] as string;
						await command(`remove ${step.at % length}`);
						const order = model.order.filter((id) => id !== gone);
						const links = new Map(
							order.map((id) => {
								const { waits, parent } = model.links.get(id) ?? { waits: [] };
								const kept = waits.filter((wait) => wait !== gone);
								return [id, parent === undefined || parent === gone ? { waits: kept } : { waits: kept, parent }];
							}),
						);
						model = { order, links };
					} else if (step.kind === "move" && length > 0) {
						const [from, to] = [step.from % length, step.to % length];
						await command(`move ${from} ${to}`);
						const order = [...model.order];
						const [id] = order.splice(from, 1);
						order.splice(to, 0, id as string);
						model = { ...model, order };
					} else if (step.kind === "edit" && length > 0) {
						await tool("edit_todos", { action: step.action, indices: [step.at % length] });
					}
					expect(getTodos().map((todo) => todo.text)).toEqual(model.order);
					expect(linksById(getTodos())).toEqual(model.links);
				}
			}),
			{ numRuns: 300 },
		);
	});
});

describe("no continuation is ever sent while no item is ready", () => {
	it("every continuation goes out with some item ready to work on", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), async (ops) => {
				const { pi, fire, tool } = await start();
				let next = 0;
				for (const step of ops) {
					const length = getTodos().length;
					if (step.kind === "write") {
						const total = step.mode === "replace" ? step.items.length : length + step.items.length;
						const at = step.at % (length + 1);
						const todos = step.items.map((item, n) => ({
							text: `t${next++}`,
							...linksOf(indicesOf(item, landsAt(step.mode, at, length, n), total)),
						}));
						await tool("write_todos", { mode: step.mode, todos, index: at });
					} else if (step.kind === "edit" && length > 0) {
						await tool("edit_todos", { action: step.action, indices: [step.at % length] });
					} else if (step.kind === "runEnd") {
						const answer = { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "Working." }] };
						await fire("agent_end", { messages: [answer] });
						await fire("agent_settled");
					}
					const sentBefore = pi.sent.length;
					const workable = someItemWorkable(getTodos());
					await vi.advanceTimersByTimeAsync(step.kind === "tick" ? 1100 : 0);
					const continuations = pi.sent
						.slice(sentBefore)
						.filter((sent) => sent.message.customType === "til-done-countdown");
					expect(continuations.length === 0 || workable, JSON.stringify(getTodos())).toBe(true);
				}
			}),
			{ numRuns: 300 },
		);
	});
});
