// The file the package's pi manifest names. pi's loader runs it with a `require` that compiles TypeScript and hands
// out pi's own libraries: the built bundle when there is one (a published package, or a clone after `npm run build`),
// else the TypeScript source (a fresh clone or a git install: nothing to build first).
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const built = join(__dirname, "..", "dist", "index.js");
module.exports = require(existsSync(built) ? built : join(__dirname, "..", "src", "index.ts")).default;
