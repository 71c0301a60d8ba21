/** The seed's text builders: a face of the core, where they live (the model's text and the TUI's themed lines). */

export * from "./core/list/list-text.ts";
export * from "./core/views/themed-list.ts";
