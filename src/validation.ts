/** The seed's checks on todo data and tool parameters: a face of the core, where they live. */

export * from "./core/list/items.ts";
export * from "./core/rules/tool-params.ts";
