/**
 * The entry the package's pi manifest names, run by pi's loader, which compiles TypeScript and gives the modules it
 * loads a `require` that hands out pi's own libraries. It loads the built bundle when there is one (a published
 * package, or a clone after `npm run build`), else the TypeScript source (a fresh clone: nothing to build first). At
 * the package's root, so pi lists the extension under the package's name.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";

const built = join(__dirname, "dist", "index.js");
const tilDone: ExtensionFactory = require(existsSync(built) ? built : join(__dirname, "src", "index.ts")).default;

export default tilDone;
