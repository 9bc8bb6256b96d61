// The npm launcher of ask-user: which platform package it picks for a machine (with the
// platform, arch and libc faked), how it finds the binary, and, on this machine, that the
// `ask-user` command runs a binary with the caller's arguments, streams and exit status.
//
// Run: node --test integrations/npm/test/

"use strict";

const assert = require("node:assert/strict");
const { spawnSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const test = require("node:test");

const PACKAGE = path.join(__dirname, "..", "ask-user");
const launcher = require(path.join(PACKAGE, "lib", "index.js"));
const manifest = require(path.join(PACKAGE, "package.json"));

const host = (platform, arch, libc = null) => ({ platform, arch, libc });

test("each supported machine gets its own platform package", () => {
	const cases = [
		[host("linux", "x64", "glibc"), "@ask-user/cli-linux-x64"],
		[host("linux", "arm64", "glibc"), "@ask-user/cli-linux-arm64"],
		[host("darwin", "x64"), "@ask-user/cli-darwin-x64"],
		[host("darwin", "arm64"), "@ask-user/cli-darwin-arm64"],
	];
	for (const [machine, expected] of cases) {
		assert.equal(launcher.platformPackage(machine).package, expected, launcher.describe(machine));
	}
});

test("a machine without a binary gets an error that names it and what exists", () => {
	const cases = [
		[host("linux", "x64", "musl"), "linux-x64 (musl)"],
		[host("win32", "x64"), "win32-x64"],
		[host("linux", "ia32", "glibc"), "linux-ia32 (glibc)"],
		[host("freebsd", "x64"), "freebsd-x64"],
	];
	for (const [machine, name] of cases) {
		assert.throws(
			() => launcher.platformPackage(machine),
			(error) => {
				assert.match(error.message, new RegExp(`no prebuilt binary for this machine, ${name.replace(/[()]/g, "\\$&")};`));
				assert.match(error.message, /linux-x64 \(glibc\), linux-arm64 \(glibc\), darwin-x64, darwin-arm64/);
				assert.match(error.message, /cargo install --locked ask-user/);
				return true;
			},
		);
	}
});

test("the optional dependencies are exactly the platform packages, at the launcher's version", () => {
	const expected = Object.fromEntries(launcher.PLATFORMS.map((p) => [p.package, manifest.version]));
	assert.deepEqual(manifest.optionalDependencies, expected);
	assert.equal(manifest.dependencies, undefined, "the launcher needs nothing else");
	assert.equal(manifest.scripts, undefined, "no install scripts");
});

/** A folder with `node_modules/PACKAGE/package.json` and `bin/BINARY` for each entry. */
function fakeInstall(entries) {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), "ask-user-launcher-"));
	for (const { name, binary, script } of entries) {
		const dir = path.join(root, "node_modules", ...name.split("/"));
		fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
		fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version: manifest.version }));
		if (binary) fs.writeFileSync(path.join(dir, "bin", binary), script ?? "", { mode: 0o755 });
	}
	return root;
}

test("the binary is found in the platform package installed beside the launcher", () => {
	const machine = host("darwin", "arm64");
	const root = fakeInstall([{ name: "@ask-user/cli-darwin-arm64", binary: "ask-user" }]);
	const found = launcher.binaryPath(machine, path.join(root, "node_modules", "ask-user", "lib"));
	assert.equal(found, path.join(root, "node_modules", "@ask-user", "cli-darwin-arm64", "bin", "ask-user"));
});

test("a platform package left out of the install is named, with the fix", () => {
	const root = fakeInstall([{ name: "@ask-user/cli-linux-arm64", binary: "ask-user" }]);
	assert.throws(
		() => launcher.binaryPath(host("linux", "x64", "glibc"), root),
		/needs the package @ask-user\/cli-linux-x64 for linux-x64 \(glibc\), and it is not installed.*--omit=optional/,
	);
});

test("detectLibc is null off Linux", () => {
	assert.equal(launcher.detectLibc("darwin"), null);
	assert.equal(launcher.detectLibc("win32"), null);
});

/**
 * The launcher installed beside a platform package for this machine whose binary is `script`:
 * the path of the `ask-user` command.
 */
function installedLauncher(script) {
	const entry = launcher.platformPackage();
	const root = fakeInstall([{ name: entry.package, binary: entry.binary, script }]);
	const copy = path.join(root, "node_modules", "ask-user");
	fs.cpSync(PACKAGE, copy, { recursive: true });
	return path.join(copy, "bin", "ask-user");
}

test("the command runs the binary with the caller's arguments, stdin, stdout and exit code", { skip: process.platform === "win32" }, () => {
	const command = installedLauncher('#!/bin/sh\nprintf "%s|" "$@"\ncat\nexit 4\n');
	const result = spawnSync(command, ["mcp", "--present", "file", "two words", ""], {
		input: "from stdin",
		encoding: "utf8",
	});
	assert.equal(result.stdout, "mcp|--present|file|two words||from stdin");
	assert.equal(result.status, 4);
});

test("a signal sent to the command reaches the binary, and the command ends by it", { skip: process.platform === "win32" }, async () => {
	// The binary says when it is ready, then waits; SIGTERM ends it (the shell's default), and the
	// launcher then ends by SIGTERM too.
	const command = installedLauncher("#!/bin/sh\necho ready\nexec sleep 30\n");
	const child = spawn(command, [], { stdio: ["ignore", "pipe", "inherit"] });
	await new Promise((resolve) => child.stdout.once("data", resolve));
	const started = Date.now();
	child.kill("SIGTERM");
	const [code, signal] = await new Promise((resolve) => child.on("exit", (c, s) => resolve([c, s])));
	assert.equal(code, null);
	assert.equal(signal, "SIGTERM");
	assert.ok(Date.now() - started < 10_000, "the binary did not wait out its sleep");
});

test("a binary that ends by a signal ends the command by the same signal", { skip: process.platform === "win32" }, () => {
	const command = installedLauncher("#!/bin/sh\nkill -HUP $$\n");
	const result = spawnSync(command, []);
	assert.equal(result.signal, "SIGHUP");
});

test("without its platform package the command says which package is missing", () => {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), "ask-user-launcher-"));
	const copy = path.join(root, "node_modules", "ask-user");
	fs.cpSync(PACKAGE, copy, { recursive: true });
	const result = spawnSync(process.execPath, [path.join(copy, "bin", "ask-user"), "--version"], { encoding: "utf8" });
	assert.equal(result.status, 1);
	assert.match(result.stderr, /^ask-user: ask-user needs the package @ask-user\/cli-[a-z0-9-]+ for .*, and it is not installed/);
});
