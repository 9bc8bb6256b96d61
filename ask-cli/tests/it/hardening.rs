//! The hardening of the `ask-user` binary, read from its ELF headers as a distribution's
//! hardening check reads them: a position-independent executable (`ET_DYN` with `DF_1_PIE`),
//! full RELRO (`BIND_NOW` and a `PT_GNU_RELRO` segment) and a stack that is not executable
//! (`PT_GNU_STACK` without `PF_X`). The debug binary is checked by every `cargo test`; the binary
//! inside each package of `cargo xtask dist` (the npm platform package, the wheel, the `.mcpb`
//! bundle) by `.ci/run`, which builds them.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use object::elf;
use object::read::elf::{Dyn as _, FileHeader, ProgramHeader as _};
use object::{Endianness, FileKind};

/// What the headers of a binary say.
#[derive(Debug, Default)]
struct Headers {
    /// `e_type` is `ET_DYN`.
    dynamic: bool,
    /// `DT_FLAGS_1` has `DF_1_PIE`.
    pie_flag: bool,
    /// `DT_FLAGS` has `DF_BIND_NOW`, `DT_FLAGS_1` has `DF_1_NOW`, or there is a `DT_BIND_NOW`.
    bind_now: bool,
    /// There is a `PT_GNU_RELRO` segment.
    relro: bool,
    /// There is a `PT_GNU_STACK` segment, and it is not executable.
    stack_not_executable: bool,
}

impl Headers {
    /// What a binary lacks, in the words of the ELF specification; empty when it is hardened.
    fn lacks(&self) -> Vec<&'static str> {
        [
            (self.dynamic, "PIE: e_type is not ET_DYN"),
            (self.pie_flag, "PIE: DT_FLAGS_1 has no DF_1_PIE"),
            (
                self.bind_now,
                "full RELRO: no BIND_NOW in DT_FLAGS or DT_FLAGS_1",
            ),
            (self.relro, "full RELRO: no PT_GNU_RELRO segment"),
            (
                self.stack_not_executable,
                "a non-executable stack: no PT_GNU_STACK, or it has PF_X",
            ),
        ]
        .into_iter()
        .filter_map(|(holds, lack)| (!holds).then_some(lack))
        .collect()
    }
}

/// Reads the headers of an ELF file of either class.
fn headers(data: &[u8]) -> Result<Headers, String> {
    let read = match FileKind::parse(data).map_err(|error| error.to_string())? {
        FileKind::Elf32 => headers_of::<elf::FileHeader32<Endianness>>(data),
        FileKind::Elf64 => headers_of::<elf::FileHeader64<Endianness>>(data),
        other => return Err(format!("not an ELF file but {other:?}")),
    };
    read.map_err(|error| error.to_string())
}

fn headers_of<Elf: FileHeader<Endian = Endianness>>(data: &[u8]) -> object::Result<Headers> {
    let header = Elf::parse(data)?;
    let endian = header.endian()?;
    let segments = header.program_headers(endian, data)?;
    let mut headers = Headers {
        dynamic: header.e_type(endian) == elf::ET_DYN,
        ..Headers::default()
    };
    for segment in segments {
        let kind = segment.p_type(endian);
        headers.relro |= kind == elf::PT_GNU_RELRO;
        if kind == elf::PT_GNU_STACK {
            headers.stack_not_executable = !segment.p_flags(endian).contains(elf::PF_X);
        }
        for entry in segment.dynamic(endian, data)?.unwrap_or_default() {
            let value = entry.val(endian);
            match entry.tag(endian) {
                elf::DT_FLAGS => {
                    headers.bind_now |= elf::DynamicFlags(value).contains(elf::DF_BIND_NOW);
                }
                elf::DT_FLAGS_1 => {
                    let flags = elf::DynamicFlags1(value);
                    headers.pie_flag |= flags.contains(elf::DF_1_PIE);
                    headers.bind_now |= flags.contains(elf::DF_1_NOW);
                }
                elf::DT_BIND_NOW => headers.bind_now = true,
                _ => {}
            }
        }
    }
    Ok(headers)
}

/// Fails unless the binary at `path` is a PIE with full RELRO and a non-executable stack.
#[track_caller]
fn check_hardened(path: &Path) {
    let data = std::fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let headers = headers(&data).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let lacks = headers.lacks();
    assert!(
        lacks.is_empty(),
        "{} is not hardened; it lacks:\n  {}",
        path.display(),
        lacks.join("\n  ")
    );
}

#[test]
fn the_binary_is_a_pie_with_full_relro_and_a_non_executable_stack() {
    check_hardened(Path::new(env!("CARGO_BIN_EXE_ask-user")));
}

#[test]
fn a_binary_without_the_hardening_is_refused_with_what_it_lacks() {
    let lacks = Headers::default().lacks();
    assert_eq!(lacks.len(), 5, "{lacks:?}");
    let all = Headers {
        dynamic: true,
        pie_flag: true,
        bind_now: true,
        relro: true,
        stack_not_executable: true,
    };
    assert!(all.lacks().is_empty());
    assert!(headers(b"#!/bin/sh\n").is_err());
}

#[test]
#[ignore = "needs the packages of cargo xtask dist; run by .ci/run"]
fn the_binary_in_each_package_is_hardened() {
    let packages = common::packages::packages_dir();
    let unpacked = tempfile::tempdir().unwrap();
    let mut checked: Vec<String> = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&packages)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for archive in entries {
        let name = archive.file_name().unwrap().to_string_lossy().to_string();
        let into = unpacked.path().join(&name);
        let unpack = match archive.extension().and_then(|e| e.to_str()) {
            Some("tgz") => {
                std::fs::create_dir(&into).unwrap();
                Command::new("tar")
                    .arg("-xzf")
                    .arg(&archive)
                    .arg("-C")
                    .arg(&into)
                    .output()
            }
            // A wheel and a bundle are zip files; Python's zipfile unpacks them anywhere.
            Some("whl" | "mcpb") => Command::new("python3")
                .args(["-m", "zipfile", "-e"])
                .arg(&archive)
                .arg(&into)
                .output(),
            _ => continue,
        };
        let unpack = unpack.unwrap();
        assert!(
            unpack.status.success(),
            "unpacking {name} failed: {}",
            String::from_utf8_lossy(&unpack.stderr)
        );
        for binary in binaries_in(&into) {
            check_hardened(&binary);
            checked.push(name.clone());
        }
    }
    // The npm platform package, the wheel and the bundle each hold the binary.
    for kind in [".tgz", ".whl", ".mcpb"] {
        assert!(
            checked.iter().any(|name| name.ends_with(kind)),
            "no {kind} package in {} holds an ask-user binary (checked: {checked:?})",
            packages.display()
        );
    }
}

/// The files named `ask-user` under `dir` that are ELF files.
fn binaries_in(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.file_name().is_some_and(|name| name == "ask-user")
                && std::fs::read(&path).is_ok_and(|data| data.starts_with(b"\x7fELF"))
            {
                found.push(path);
            }
        }
    }
    found
}
