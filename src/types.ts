/** The seed's types, limits and lookup tables: a face of the core, where they live (core/model/types.ts). */

export * from "./core/model/types.ts";
