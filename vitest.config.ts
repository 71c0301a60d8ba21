import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// The CLI-level suites run on every tested pi version; this fetches the ones npm cannot install.
		globalSetup: ["test/global-setup.ts"],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		// End-to-end suites start real pi runtimes; two workers fit the 2-core machines CI runs on.
		maxWorkers: 2,
		// `npm run coverage` measures the unit and property tests only: the end-to-end tests load src/ through pi's own
		// TypeScript loader, whose transformed copies v8 reports under the same paths, which corrupts the merge.
		coverage: {
			provider: "v8",
			include: ["src/**/*.ts"],
			reporter: ["text-summary", "text"],
			thresholds: { lines: 95, branches: 95 },
		},
	},
});
