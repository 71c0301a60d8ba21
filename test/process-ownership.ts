/**
 * After every test: the process is nobody's again. A session of the extension claims the process it runs in and marks
 * the environment for the processes it starts (src/edges/host/role.ts); a test that leaves its session running must not
 * make the next test's sessions guests.
 */
import { afterEach } from "vitest";
import { freshProcess } from "./helpers/store.ts";

afterEach(freshProcess);
