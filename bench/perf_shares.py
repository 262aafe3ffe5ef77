#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""perf_shares.py: where a proctape capture's CPU goes, as shares of samples.

    perf record -F 2999 --call-graph dwarf,16384 -o capture.perf -- \\
        build/cli/proctape capture --threads 1 -o /tmp/c.ptape --force
    perf script -i capture.perf > capture.txt
    python3 bench/perf_shares.py capture.txt

Each sample of the `proctape` command (its call graph, leaf first) goes to the
first category below whose pattern matches any of its frames; the order is the
priority (a page fault inside zstd is zstd's). Prints one line per category
holding at least 0.5 % of the samples. BENCHMARKS.md, "Capture near the floor".
"""
import collections
import re
import sys

CATEGORIES = [
    ("startup and exit (ld.so, init, exit)", r"_dl_start|_dl_init|call_init|_dl_fini|exit_mmap|do_exit"),
    ("zstd compression", r"ZSTD_"),
    ("protobuf serialize (ByteSizeLong, _InternalSerialize)",
     r"SerializeAsString|AppendPartialToString|_InternalSerialize|ByteSizeLong|SerializeToString"),
    ("version 2 tables (PreviousFrame, KeyOf) and blobs (StoreOnce)",
     r"PreviousFrame|StoreOnce|RecordKey|KeyOf|CompactAgainst"),
    ("environ redaction", r"RedactEnviron"),
    ("openat(2)", r"__libc_openat64|__GI___openat|openat64"),
    ("read(2)", r"__GI___libc_read|__libc_read\b"),
    ("close(2)", r"__GI___close|__close\b"),
    ("fstatat(2) of exe and ns/pid", r"fstatat"),
    ("listing /proc (getdents64)", r"getdents|readdir|ListPids"),
    ("write(2) of the file", r"__GI___libc_write|__libc_write|OutputFile::Write"),
    ("protobuf destroy and clear", r"~ProcessRecord|~Frame|~FileRead|::Clear\b|clear_body|DestroyProtos|ArenaStringPtr::Destroy|~Chunk"),
    ("page faults", r"exc_page_fault"),
    ("malloc and free", r"malloc|_int_free|cfree|__libc_free|unlink_chunk|operator new|operator delete|sbrk|brk"),
    ("protobuf build (set_*, mutable_*)", r"ArenaStringPtr::Set|CreateMaybeMessage|Arena|mutable_|set_data"),
    ("record glue (ReadRecord, ReadFile)", r"ReadRecord|ReadFile|PidPath|to_string"),
    ("writer, other (AddProcess, FlushFramePart)", r"SnapshotWriter"),
]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: perf_shares.py PERF_SCRIPT_OUTPUT")
    rules = [(name, re.compile(pattern)) for name, pattern in CATEGORIES]
    counts = collections.Counter()
    total = 0
    stack = None

    def flush(frames):
        nonlocal total
        if not frames:
            return
        total += 1
        text = "\n".join(frames)
        for name, rule in rules:
            if rule.search(text):
                counts[name] += 1
                return
        counts["other"] += 1

    with open(sys.argv[1], errors="replace") as lines:
        for line in lines:
            if not line.strip():
                flush(stack)
                stack = None
            elif not line.startswith(("\t", " ")):
                stack = [] if line.startswith("proctape") else None
            elif stack is not None:
                stack.append(line.strip())
    flush(stack)
    print(f"samples {total}")
    small = 0
    for name, count in counts.most_common():
        if count * 200 >= total:
            print(f"{100.0 * count / total:5.1f} %  {name}")
        else:
            small += count
    print(f"{100.0 * small / max(total, 1):5.1f} %  (categories under 0.5 % each)")


if __name__ == "__main__":
    main()
