/**
 * The imports of src/ as the TypeScript source states them: each module's static and dynamic imports and re-exports,
 * with whether only types cross (those never load anything). Read by the layer rule and by what a start loads.
 */

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export const SRC = resolve(import.meta.dirname, "../../src");

export interface ModuleImport {
	/** A module of src/ (path relative to src/), or a package name. */
	target: string;
	typeOnly: boolean;
	/** An `import()` call: the module loads when the call runs, not with its importer. */
	dynamic: boolean;
	/** A relative path: a module of src/ is meant, whether or not `target` names one. */
	local: boolean;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory()
			? sourceFiles(join(dir, entry.name))
			: entry.name.endsWith(".ts")
				? [join(dir, entry.name)]
				: [],
	);
}

/** Every module of src/, as a path relative to src/. */
export const MODULES: readonly string[] = sourceFiles(SRC).map((file) => relative(SRC, file));

export function parse(module: string): ts.SourceFile {
	const file = join(SRC, module);
	return ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
}

function isTypeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
	if (ts.isExportDeclaration(statement)) return statement.isTypeOnly;
	const clause = statement.importClause;
	if (!clause) return false;
	if (clause.isTypeOnly) return true;
	const bindings = clause.namedBindings;
	return !clause.name && bindings !== undefined && ts.isNamedImports(bindings)
		? bindings.elements.every((element) => element.isTypeOnly)
		: false;
}

/** The imports and re-exports of one module (static and dynamic). */
export function importsOf(module: string): ModuleImport[] {
	const found: ModuleImport[] = [];
	const add = (spec: string, typeOnly: boolean, dynamic: boolean) => {
		const local = spec.startsWith(".");
		found.push({ target: local ? relative(SRC, resolve(SRC, dirname(module), spec)) : spec, typeOnly, dynamic, local });
	};
	const visit = (node: ts.Node) => {
		if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
			if (ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, isTypeOnly(node), false);
		} else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
			const [spec] = node.arguments;
			if (spec && ts.isStringLiteral(spec)) add(spec.text, false, true);
		}
		ts.forEachChild(node, visit);
	};
	visit(parse(module));
	return found;
}

/** The modules of src/ that loading `entry` loads: its static imports that carry values, and theirs, `entry` included. */
export function loadedWith(entry: string, imports: (module: string) => readonly ModuleImport[] = importsOf): string[] {
	const loaded = new Set<string>();
	const visit = (module: string) => {
		if (loaded.has(module)) return;
		loaded.add(module);
		for (const { target, typeOnly, dynamic } of imports(module)) {
			if (!typeOnly && !dynamic && MODULES.includes(target)) visit(target);
		}
	};
	visit(entry);
	return [...loaded].sort();
}

/** The names a module exports, types included, following its `export *` re-exports within src/. */
export function exportedNames(module: string): string[] {
	const names = new Set<string>();
	for (const statement of parse(module).statements) {
		if (ts.isExportDeclaration(statement)) {
			const target = statement.moduleSpecifier;
			const clause = statement.exportClause;
			if (!clause && target && ts.isStringLiteral(target)) {
				for (const name of exportedNames(relative(SRC, resolve(SRC, dirname(module), target.text)))) names.add(name);
			} else if (clause && ts.isNamedExports(clause)) {
				for (const element of clause.elements) names.add(element.name.text);
			}
		} else if (ts.canHaveModifiers(statement)) {
			const modifiers = ts.getModifiers(statement) ?? [];
			if (!modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
			if (modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword)) {
				names.add("default");
				continue;
			}
			if (ts.isVariableStatement(statement)) {
				for (const declaration of statement.declarationList.declarations)
					if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
			} else if ("name" in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) {
				names.add((statement.name as ts.Identifier).text);
			}
		}
	}
	return [...names].sort();
}
