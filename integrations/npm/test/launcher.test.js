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

/**
 * `node_modules/PACKAGE/package.json` and `bin/BINARY` for each entry, under `root` (default: a
 * new temporary folder); `version` defaults to the launcher's. Returns `root`.
 */
function fakeInstall(entries, root = fs.mkdtempSync(path.join(os.tmpdir(), "ask-user-launcher-"))) {
	for (const { name, binary, script, version, under = "" } of entries) {
		const dir = path.join(root, under, "node_modules", ...name.split("/"));
		fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
		fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version: version ?? manifest.version }));
		if (binary) fs.writeFileSync(path.join(dir, "bin", binary), script ?? "", { mode: 0o755 });
	}
	return root;
}

/** A copy of the launcher at `folder` (its package folder); returns `folder`. */
function copyLauncher(folder) {
	fs.cpSync(PACKAGE, folder, { recursive: true });
	return folder;
}

test("the binary is found in the platform package installed beside the launcher", () => {
	const machine = host("darwin", "arm64");
	const root = fakeInstall([{ name: "@ask-user/cli-darwin-arm64", binary: "ask-user" }]);
	const own = copyLauncher(path.join(root, "node_modules", "ask-user"));
	const found = launcher.binaryPath(machine, own);
	assert.equal(found, path.join(fs.realpathSync(root), "node_modules", "@ask-user", "cli-darwin-arm64", "bin", "ask-user"));
});

test("the binary is found in the launcher's own nested node_modules", () => {
	const machine = host("linux", "arm64", "glibc");
	const root = fs.mkdtempSync(path.join(os.tmpdir(), "ask-user-launcher-"));
	const own = copyLauncher(path.join(root, "lib", "node_modules", "ask-user"));
	fakeInstall([{ name: "@ask-user/cli-linux-arm64", binary: "ask-user" }], own);
	const found = launcher.binaryPath(machine, own);
	assert.equal(found, path.join(fs.realpathSync(own), "node_modules", "@ask-user", "cli-linux-arm64", "bin", "ask-user"));
});

test("a platform package left out of the install is named, with the fix", () => {
	const root = fakeInstall([{ name: "@ask-user/cli-linux-arm64", binary: "ask-user" }]);
	const own = copyLauncher(path.join(root, "node_modules", "ask-user"));
	assert.throws(
		() => launcher.binaryPath(host("linux", "x64", "glibc"), own),
		/needs the package @ask-user\/cli-linux-x64 for linux-x64 \(glibc\), and it is not installed beside it \(looked in .*\).*--omit=optional/,
	);
});

test("a platform package planted in an ancestor folder's node_modules is never used", () => {
	// A project under a folder another user can write: /tmp/node_modules is theirs to fill.
	const machine = host("linux", "x64", "glibc");
	const shared = fakeInstall([{ name: "@ask-user/cli-linux-x64", binary: "ask-user" }]);
	const own = copyLauncher(path.join(shared, "project", "node_modules", "ask-user"));
	assert.throws(() => launcher.binaryPath(machine, own), /and it is not installed beside it/);
});

test("a package of another name or version at the launcher's place is refused, and named", () => {
	const machine = host("darwin", "x64");
	const root = fakeInstall([{ name: "@ask-user/cli-darwin-x64", binary: "ask-user", version: "9.9.9" }]);
	const own = copyLauncher(path.join(root, "node_modules", "ask-user"));
	assert.throws(
		() => launcher.binaryPath(machine, own),
		new RegExp(`expected the package @ask-user/cli-darwin-x64@${manifest.version.replace(/\./g, "\\.")} at .*, and found @ask-user/cli-darwin-x64@9\\.9\\.9 there`),
	);
	const other = fs.mkdtempSync(path.join(os.tmpdir(), "ask-user-launcher-"));
	const ownOther = copyLauncher(path.join(other, "node_modules", "ask-user"));
	const dir = path.join(ownOther, "node_modules", "@ask-user", "cli-darwin-x64");
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "evil", version: manifest.version }));
	assert.throws(() => launcher.binaryPath(machine, ownOther), /and found evil@/);
});

test("the launcher's own nested platform package comes before a sibling of another version", () => {
	// npm nests the launcher's own version when another version holds the sibling's place.
	const machine = host("darwin", "arm64");
	const root = fakeInstall([{ name: "@ask-user/cli-darwin-arm64", binary: "ask-user", version: "9.9.9" }]);
	const own = copyLauncher(path.join(root, "node_modules", "ask-user"));
	fakeInstall([{ name: "@ask-user/cli-darwin-arm64", binary: "ask-user" }], own);
	const found = launcher.binaryPath(machine, own);
	assert.equal(found, path.join(fs.realpathSync(own), "node_modules", "@ask-user", "cli-darwin-arm64", "bin", "ask-user"));
});

test("pnpm's layout, where the sibling is a symlink into the store, is followed", { skip: process.platform === "win32" }, () => {
	const machine = host("linux", "x64", "glibc");
	const root = fs.mkdtempSync(path.join(os.tmpdir(), "ask-user-launcher-"));
	const store = path.join(root, "node_modules", ".pnpm");
	const own = copyLauncher(path.join(store, `ask-user@${manifest.version}`, "node_modules", "ask-user"));
	const platformUnder = path.join(store, `@ask-user+cli-linux-x64@${manifest.version}`);
	fakeInstall([{ name: "@ask-user/cli-linux-x64", binary: "ask-user" }], platformUnder);
	const sibling = path.join(store, `ask-user@${manifest.version}`, "node_modules", "@ask-user", "cli-linux-x64");
	fs.mkdirSync(path.dirname(sibling), { recursive: true });
	fs.symlinkSync(path.join(platformUnder, "node_modules", "@ask-user", "cli-linux-x64"), sibling);
	const found = launcher.binaryPath(machine, own);
	assert.equal(found, path.join(fs.realpathSync(platformUnder), "node_modules", "@ask-user", "cli-linux-x64", "bin", "ask-user"));
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
	return path.join(copyLauncher(path.join(root, "node_modules", "ask-user")), "bin", "ask-user");
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
	const copy = copyLauncher(path.join(root, "node_modules", "ask-user"));
	const result = spawnSync(process.execPath, [path.join(copy, "bin", "ask-user"), "--version"], { encoding: "utf8" });
	assert.equal(result.status, 1);
	assert.match(result.stderr, /^ask-user: ask-user needs the package @ask-user\/cli-[a-z0-9-]+ for .*, and it is not installed/);
});

test("the command never runs a platform package found through NODE_PATH or an ancestor folder", { skip: process.platform === "win32" }, () => {
	const entry = launcher.platformPackage();
	const planted = fs.mkdtempSync(path.join(os.tmpdir(), "ask-user-launcher-"));
	const marker = path.join(planted, "ran");
	const script = `#!/bin/sh\ntouch '${marker}'\n`;
	fakeInstall([{ name: entry.package, binary: entry.binary, script }], planted);
	fakeInstall([{ name: entry.package, binary: entry.binary, script, under: "elsewhere" }], planted);
	const own = copyLauncher(path.join(planted, "project", "node_modules", "ask-user"));
	const result = spawnSync(process.execPath, [path.join(own, "bin", "ask-user"), "--version"], {
		encoding: "utf8",
		env: { ...process.env, NODE_PATH: path.join(planted, "elsewhere", "node_modules") },
	});
	assert.equal(result.status, 1);
	assert.match(result.stderr, /and it is not installed beside it/);
	assert.equal(fs.existsSync(marker), false, "a planted binary ran");
});

test("the command runs its binary through pnpm's symlinks", { skip: process.platform === "win32" }, () => {
	const entry = launcher.platformPackage();
	const root = fs.mkdtempSync(path.join(os.tmpdir(), "ask-user-launcher-"));
	const store = path.join(root, "node_modules", ".pnpm");
	const real = copyLauncher(path.join(store, `ask-user@${manifest.version}`, "node_modules", "ask-user"));
	const platformUnder = path.join(store, `platform@${manifest.version}`);
	fakeInstall([{ name: entry.package, binary: entry.binary, script: "#!/bin/sh\necho pnpm-binary\n" }], platformUnder);
	const sibling = path.join(path.dirname(real), ...entry.package.split("/"));
	fs.mkdirSync(path.dirname(sibling), { recursive: true });
	fs.symlinkSync(path.join(platformUnder, "node_modules", ...entry.package.split("/")), sibling);
	fs.symlinkSync(real, path.join(root, "node_modules", "ask-user"));
	const result = spawnSync(path.join(root, "node_modules", "ask-user", "bin", "ask-user"), [], { encoding: "utf8" });
	assert.equal(result.stderr, "");
	assert.equal(result.stdout, "pnpm-binary\n");
	assert.equal(result.status, 0);
});
