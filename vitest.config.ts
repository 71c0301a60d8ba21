import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// The CLI-level suites run on every tested pi version; this fetches the ones npm cannot install.
		globalSetup: ["test/global-setup.ts"],
		setupFiles: ["test/process-ownership.ts", "test/store-outside-sessions.ts"],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		// End-to-end suites start real pi runtimes; two workers fit the 2-core machines CI runs on.
		maxWorkers: 2,
		// Istanbul instruments what vite loads, so the copies of src/ that pi's own loader compiles inside the end-to-end
		// tests stay out of the figures (v8 reported them under the same paths and corrupted the merge).
		coverage: {
			provider: "istanbul",
			include: ["src/**/*.ts"],
			reporter: ["text-summary", "text"],
			thresholds: { lines: 95, branches: 95 },
		},
	},
});
