/**
 * Unit and property tests drive the store directly, outside any session; end-to-end tests run real sessions, where
 * the store used outside one is an error (src/store/scope.ts), so a listener left unbound fails them. Both tell the
 * sessions apart by async context from the first, as a process with several does (a pi process with one session
 * never needs to: the real pi's tests run that way).
 */
import { expect } from "vitest";
import { allowStoreOutsideSessions, scopeEverySession } from "../src/state.ts";

scopeEverySession();
if (!expect.getState().testPath?.includes("/test/e2e/")) allowStoreOutsideSessions();
