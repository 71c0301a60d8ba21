import { defineConfig } from "tsup";

export default defineConfig({
	entry: ["src/index.ts"],
	// ESM for programs that import the package; CommonJS for pi, whose manifest entry (the root index.ts) runs
	// dist/index.cjs with pi's own `require` and a V8 code cache.
	format: ["esm", "cjs"],
	// One file each: what loads on first use is in it, evaluated only when first imported.
	splitting: false,
	dts: true,
	clean: true,
	target: "node22",
	// `import.meta.url` in the CommonJS bundle: the file it runs from.
	shims: true,
	// Every pi start compiles the bundle (once, then from its code cache): minified, it is 45% smaller; the source map
	// keeps stack traces readable.
	minify: true,
	sourcemap: true,
	// The package ships src/, which the map points to.
	esbuildOptions(options) {
		options.sourcesContent = false;
	},
	external: ["@earendil-works/pi-coding-agent", "@earendil-works/pi-ai", "@earendil-works/pi-tui", "typebox"],
});
