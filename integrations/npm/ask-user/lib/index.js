"use strict";
/**
 * Which platform package holds the ask-user binary for this machine, and where that binary is.
 *
 * The binaries come in one package per platform (`@ask-user/cli-<os>-<cpu>`), listed as
 * optional dependencies of this package with `os`, `cpu` and `libc` fields, so npm installs only
 * the one that fits. Nothing is downloaded at install or run time.
 */

const fs = require("node:fs");
const path = require("node:path");

/** The platform packages: `{package, os, cpu, libc?, target, binary}` each. */
const PLATFORMS = require("./platforms.json");

/** The C library of a Linux machine: "glibc" or "musl"; null elsewhere. */
function detectLibc(platform = process.platform) {
	if (platform !== "linux") return null;
	// Node's diagnostic report names the glibc it runs on; a musl build of Node has none. The
	// network part of the report is skipped: it may wait on name lookups.
	const report = process.report;
	const exclude = report.excludeNetwork;
	report.excludeNetwork = true;
	try {
		const header = report.getReport().header || {};
		return header.glibcVersionRuntime ? "glibc" : "musl";
	} finally {
		report.excludeNetwork = exclude;
	}
}

/** This machine, as the platform packages describe one. */
function currentHost() {
	return { platform: process.platform, arch: process.arch, libc: detectLibc() };
}

/** A short name for a machine: `linux-x64 (glibc)`, `darwin-arm64`. */
function describe(host) {
	const name = `${host.platform}-${host.arch}`;
	return host.libc ? `${name} (${host.libc})` : name;
}

/**
 * The platform package for `host`, or an error naming the machine and the platforms that have
 * a binary.
 */
function platformPackage(host = currentHost()) {
	const entry = PLATFORMS.find(
		(p) =>
			p.os === host.platform && p.cpu === host.arch && (p.libc === undefined || p.libc === host.libc),
	);
	if (entry) return entry;
	const known = PLATFORMS.map((p) => describe({ platform: p.os, arch: p.cpu, libc: p.libc })).join(", ");
	throw new Error(
		`ask-user has no prebuilt binary for this machine, ${describe(host)}; there are binaries for ` +
			`${known}. On another machine, build it from source with Rust: cargo install --locked ask-user`,
	);
}

/** This package's own folder: the one that holds `package.json`, `bin/` and `lib/`. */
const OWN_FOLDER = path.join(__dirname, "..");

/**
 * The two places the platform package may be, for the launcher installed at `own`, in the order
 * Node would look, and no others: in the launcher's own nested `node_modules` (npm's layout for a
 * global install, or when another version holds the sibling's place), then beside the launcher,
 * in the `node_modules` folder that holds it (npm's and pnpm's layouts; pnpm's entry is a
 * symlink, which is followed). Node's module resolution is not used: it would also search every
 * ancestor folder's `node_modules`, `NODE_PATH` and `~/.node_modules`, where any other user of a
 * shared folder such as `/tmp` could plant a package of that name.
 */
function candidatePaths(entry, own) {
	const parts = entry.package.split("/");
	const places = [path.join(own, "node_modules", ...parts)];
	const holder = path.dirname(own);
	if (path.basename(holder) === "node_modules") places.push(path.join(holder, ...parts));
	return places;
}

/** The `package.json` at `folder`, parsed; null when there is none. */
function readManifest(folder) {
	let text;
	try {
		text = fs.readFileSync(path.join(folder, "package.json"), "utf8");
	} catch (error) {
		if (error.code === "ENOENT" || error.code === "ENOTDIR") return null;
		throw error;
	}
	try {
		return JSON.parse(text);
	} catch {
		return { name: undefined, version: undefined };
	}
}

/**
 * The path of the ask-user binary for `host` (default: this machine), from the platform package
 * of the launcher whose folder is `own` (default: this package). The platform package must be at
 * one of the two places `candidatePaths` names, and its `name` and `version` must be the ones
 * the launcher expects; anything else throws a sentence naming what was found and the fix.
 */
function binaryPath(host = currentHost(), own = OWN_FOLDER) {
	const entry = platformPackage(host);
	const { version } = readManifest(own) ?? {};
	const places = candidatePaths(entry, own);
	for (const place of places) {
		const found = readManifest(place);
		if (found === null) continue;
		if (found.name !== entry.package || found.version !== version) {
			const what = `${found.name ?? "a package without a name"}@${found.version ?? "no version"}`;
			throw new Error(
				`ask-user expected the package ${entry.package}@${version} at ${place}, and found ` +
					`${what} there. Install ask-user again, so that npm puts its own platform package there.`,
			);
		}
		return path.join(fs.realpathSync(place), "bin", entry.binary);
	}
	const pnp = process.versions.pnp
		? " Yarn Plug'n'Play is not supported: install with nodeLinker: node-modules."
		: "";
	throw new Error(
		`ask-user needs the package ${entry.package} for ${describe(host)}, and it is not ` +
			`installed beside it (looked in ${places.join(" and ")}). It is an optional dependency of ` +
			"ask-user: install again without --omit=optional (or --no-optional), and with the same " +
			`platform as this machine.${pnp}`,
	);
}

module.exports = { PLATFORMS, binaryPath, candidatePaths, currentHost, describe, detectLibc, platformPackage };
