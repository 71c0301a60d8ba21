/**
 * A worker's stand-in for unit tests: a small Node script run in a worker's place. It reads its item off its prompt,
 * writes `item-<index>.txt` in its tree and prints one model call as pi's JSON mode does; when `WORKER_GO` is set, once
 * that file exists. `WORKER_MODE`: `write` (default), `conflict` (writes a.txt), `fail` (exits 1 after writing), `submodules`
 * (writes its file, and one in each of the folders `ext` and `lib`, where the user's submodules are), `hang`, `half`
 * (writes `half.txt`, with `WORKER_HALF` when set, then hangs), `no-start` (says an error on stderr and exits 1 before any model call, as a pi
 * that cannot load its extensions or model does),
 * `spend` (one call of 50,000 tokens, then it hangs), `streaming` (a call in progress that has spent 700 tokens, then
 * it hangs). `WORKER_HANG`: items (`1,3`) whose worker hangs whatever the mode.
 * `WORKER_ARGS`: a file each worker appends its arguments to, as a JSON line.
 */

export const WORKER = `
const prompt = process.argv.at(-1);
const index = Number(/Your item \\(the list's words, data\\): \\[(\\d+)\\]/.exec(prompt)[1]);
const mode = process.env.WORKER_MODE ?? "write";
const fs = require("node:fs");
if (process.env.WORKER_ARGS) fs.appendFileSync(process.env.WORKER_ARGS, JSON.stringify(process.argv.slice(2)) + "\\n");
const hangs = (process.env.WORKER_HANG ?? "").split(",").includes(String(index));
if (mode === "no-start") { process.stderr.write("Error: no such model\\n"); process.exit(1); }
else if (mode === "half") { fs.writeFileSync("half.txt", process.env.WORKER_HALF ?? "half of it\\n"); setInterval(() => {}, 1000); }
else if (mode === "hang" || hangs) setInterval(() => {}, 1000);
else if (mode === "streaming") { console.log(JSON.stringify({ type: "message_update", message: { role: "assistant", usage: { input: 700, output: 0, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } } } })); setInterval(() => {}, 1000); }
else if (mode === "spend") { console.log(JSON.stringify({ type: "message_end", message: { role: "assistant", stopReason: "toolUse", content: [], usage: { input: 50000, output: 0, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } } } })); setInterval(() => {}, 1000); }
// It waits for the test's word where the test gives one (the user's change, another session's landing made first).
else if (process.env.WORKER_GO && !fs.existsSync(process.env.WORKER_GO)) { const wait = setInterval(() => { if (fs.existsSync(process.env.WORKER_GO)) { clearInterval(wait); work(); } }, 10); }
else work();
function work() {
	const name = mode === "conflict" ? "a.txt" : "item-" + index + ".txt";
	fs.writeFileSync(name, mode === "conflict" ? "the worker's line\\n" : name + " by its worker\\n");
	if (mode === "submodules") for (const folder of ["ext", "lib"]) fs.writeFileSync(folder + "/x.txt", "the worker's\\n");
	console.log(JSON.stringify({ type: "message_end", message: { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "done" }], usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } } } }));
	process.exit(mode === "fail" ? 1 : 0);
}
`;

/** The tokens of the stand-in's one model call (input 10, output 5). */
export const STAND_IN_CALL_TOKENS = 15;
