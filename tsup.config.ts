import { writeFile } from "node:fs/promises";
import { defineConfig } from "tsup";

export default defineConfig({
	entry: ["src/index.ts"],
	format: ["esm"],
	dts: true,
	clean: true,
	target: "node22",
	// Every pi start compiles the bundle: minified, it is 45% smaller; the source map keeps stack traces readable.
	minify: true,
	sourcemap: true,
	// The package ships src/, which the map points to.
	esbuildOptions(options) {
		options.sourcesContent = false;
	},
	external: ["@earendil-works/pi-coding-agent", "@earendil-works/pi-ai", "@earendil-works/pi-tui", "typebox"],
	// pi's loader (jiti) imports a `.js` file natively when the nearest package.json says "type": "module"; native
	// imports resolve pi-ai, pi-tui and typebox from node_modules, loading second copies of them (0.4 s per start).
	// A package.json without "type" makes jiti compile the bundle instead, with pi's own copies; Node itself still
	// loads the file as ESM by its syntax.
	onSuccess: async () => {
		await writeFile(
			"dist/package.json",
			`${JSON.stringify({ private: true, description: "No type: pi's loader compiles dist/index.js" }, null, 2)}\n`,
		);
	},
});
