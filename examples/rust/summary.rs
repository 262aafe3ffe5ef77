// SPDX-License-Identifier: Apache-2.0
//! What a .ptape file holds, through the C library (include/proctape.h) from
//! Rust: no crates, `extern "C"` declarations of the header's types and
//! functions, built with Debian's rustc (docs/library.md, "Rust"):
//!
//!     rustc -O --edition 2021 summary.rs -L LIBDIR -l proctape
//!     ./summary corpus/*.ptape
//!
//! For each FILE: its counts, or the library's one-line error. Exit 0 when
//! every file was read whole, 1 when one was damaged or refused, 2 on usage.

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};  // std::ffi's are newer than Debian 12's rustc 1.63
use std::process::ExitCode;

/// proctape_error: a status and one line, NUL-terminated.
#[repr(C)]
struct Error {
    status: c_int,
    message: [c_char; 512],
}

/// proctape_file_summary: the counts; the checks and fingerprints are read
/// through pointers this example does not follow (freed with the summary).
#[repr(C)]
struct FileSummary {
    chunks: u64,
    frames: u64,
    processes: u64,
    observations: u64,
    environ_kept: c_int,
    check_count: usize,
    checks: *mut c_void,
    fingerprint_count: usize,
    fingerprints: *mut c_void,
}

#[link(name = "proctape")]
extern "C" {
    fn proctape_version() -> *const c_char;
    fn proctape_status_name(status: c_int) -> *const c_char;
    fn proctape_read_file(path: *const c_char, out: *mut *mut FileSummary, err: *mut Error)
        -> c_int;
    fn proctape_file_summary_free(summary: *mut FileSummary);
}

/// A string the library returns (static, NUL-terminated).
fn text(s: *const c_char) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: the library returns NUL-terminated strings that live as long
    // as the program (proctape_version, the *_name functions) or as `err`.
    unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
}

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: summary FILE.ptape...");
        return ExitCode::from(2);
    }
    // SAFETY: no arguments; a static string.
    println!("libproctape {}", text(unsafe { proctape_version() }));
    let mut code = ExitCode::SUCCESS;
    for file in &files {
        let path = match CString::new(file.as_bytes()) {
            Ok(path) => path,
            Err(_) => {
                eprintln!("{file}: a path holds no NUL byte");
                return ExitCode::from(2);
            }
        };
        let mut summary: *mut FileSummary = std::ptr::null_mut();
        let mut err = Error { status: 0, message: [0; 512] };
        // SAFETY: `path` is NUL-terminated; `summary` and `err` are ours to fill.
        let status = unsafe { proctape_read_file(path.as_ptr(), &mut summary, &mut err) };
        if status != 0 {
            // SAFETY: a status the library returned.
            let name = text(unsafe { proctape_status_name(status) });
            eprintln!("{file}: {name}: {}", text(err.message.as_ptr()));
            code = ExitCode::from(1);
        } else if !summary.is_null() {
            // SAFETY: set by the library, valid until freed below.
            let s = unsafe { &*summary };
            println!(
                "{file}: {} chunks, {} frames, {} process records, {} observations, {} checks, {} fingerprints",
                s.chunks, s.frames, s.processes, s.observations, s.check_count, s.fingerprint_count
            );
        }
        if !summary.is_null() {
            // SAFETY: freed once, by the function the header names (also the
            // readable part of a damaged file, which is not printed).
            unsafe { proctape_file_summary_free(summary) };
        }
    }
    code
}
