import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		testTimeout: 30_000,
		hookTimeout: 30_000,
		// End-to-end suites start real pi runtimes; two workers fit the 2-core machines CI runs on.
		maxWorkers: 2,
		coverage: {
			provider: "v8",
			include: ["src/**/*.ts"],
			reporter: ["text-summary", "text"],
		},
	},
});
