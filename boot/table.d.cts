/** The types of table.cjs, the start path of a clone's source table. */

/** A module of the table's code, as the transform left it, wrapped as CommonJS wraps a module. */
export type ModuleFunction = (
	exports: object,
	require: (id: string) => unknown,
	module: { exports: object },
	filename: string,
	dirname: string,
	jitiImport: (id: string) => Promise<unknown>,
) => void;

/**
 * A module of the table: its code, its file and folder, and the module each relative name it imports names, all as
 * the table was built, so a start joins no path (about 700 joins, 1-2 ms).
 */
export type TableModule = readonly [
	run: ModuleFunction,
	filename: string,
	dirname: string,
	links: Readonly<Record<string, string>>,
];

export declare const TABLE_FORMAT: string;
/** How every table ends: one without it (cut short by a crash) is built again. */
export declare const TABLE_END: string;
export declare const SOURCE_CACHE: string;
export declare const TABLE_PREFIX: string;
export declare const KEY_FILE: string;
/** A file's size, modification and change times (milliseconds), and inode. */
export type FileStamp = readonly [size: number, mtimeMs: number, ctimeMs: number, ino: number];
export declare function fileStamp(file: string): FileStamp;
export declare function stampHolds(file: string, stamp: FileStamp): boolean;
export declare function rememberedKey(root: string): string | undefined;
export declare function tableFile(root: string, key: string): string;
export declare function readTable(file: string): string | undefined;
export declare function rememberedTable(root: string): { file: string; code: string } | undefined;
export declare function resolveFrom(name: string, id: string): string;
export declare function linkTable(table: Readonly<Record<string, TableModule>>, host: (id: string) => unknown): unknown;
