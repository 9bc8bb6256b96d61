/** A platform package that holds the ask-user binary. */
export interface Platform {
	/** The npm package, e.g. `@ask-user/cli-linux-x64`. */
	package: string;
	/** `process.platform` of the machines it fits. */
	os: string;
	/** `process.arch` of the machines it fits. */
	cpu: string;
	/** The C library of the Linux machines it fits; absent elsewhere. */
	libc?: "glibc" | "musl";
	/** The Rust target triple it was built for. */
	target: string;
	/** The binary's file name under the package's `bin/`. */
	binary: string;
}

/** A machine: `process.platform`, `process.arch` and, on Linux, its C library. */
export interface Host {
	platform: string;
	arch: string;
	libc: "glibc" | "musl" | null;
}

/** Every platform package, in the order of the launcher's optional dependencies. */
export const PLATFORMS: Platform[];
/**
 * The path of the ask-user binary for `host` (default: this machine), from the platform package
 * in the nested `node_modules` of the launcher whose folder is `own` (default: this package) or
 * beside it, never elsewhere; throws a sentence naming what was found and the fix.
 */
export function binaryPath(host?: Host, own?: string): string;
/** The only two places the platform package `entry` may be for the launcher at `own`, nested first. */
export function candidatePaths(entry: Platform, own: string): string[];
/** This machine. */
export function currentHost(): Host;
/** A short name for a machine: `linux-x64 (glibc)`, `darwin-arm64`. */
export function describe(host: Host): string;
/** The C library of a Linux machine; null elsewhere. */
export function detectLibc(platform?: string): "glibc" | "musl" | null;
/** The platform package for `host`; throws a sentence naming the machine when none fits. */
export function platformPackage(host?: Host): Platform;
