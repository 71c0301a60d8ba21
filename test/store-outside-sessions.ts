/**
 * Unit and property tests drive the store directly, outside any session; end-to-end tests run real sessions, where
 * the store used outside one is an error (src/store/scope.ts), so a listener left unbound fails them.
 */
import { expect } from "vitest";
import { allowStoreOutsideSessions } from "../src/state.ts";

if (!expect.getState().testPath?.includes("/test/e2e/")) allowStoreOutsideSessions();
