"use strict";
/**
 * Which platform package holds the ask-user binary for this machine, and where that binary is.
 *
 * The binaries come in one package per platform (`@ask-user/cli-<os>-<cpu>`), listed as
 * optional dependencies of this package with `os`, `cpu` and `libc` fields, so npm installs only
 * the one that fits. Nothing is downloaded at install or run time.
 */

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

/**
 * The path of the ask-user binary for `host`, found from `from` (this package's folder) the way
 * `require` finds a package. Throws a sentence naming the package when it is missing.
 */
function binaryPath(host = currentHost(), from = __dirname) {
	const entry = platformPackage(host);
	let manifest;
	try {
		manifest = require.resolve(`${entry.package}/package.json`, { paths: [from] });
	} catch {
		throw new Error(
			`ask-user needs the package ${entry.package} for ${describe(host)}, and it is not ` +
				"installed. It is an optional dependency of ask-user: install again without " +
				"--omit=optional (or --no-optional), and with the same platform as this machine.",
		);
	}
	return path.join(path.dirname(manifest), "bin", entry.binary);
}

module.exports = { PLATFORMS, binaryPath, currentHost, describe, detectLibc, platformPackage };
