# Sourced by scripts/package-deb.sh, Benchmarks/run-cli.sh and Benchmarks/run-all.sh: how the release
# executables that start often (the CLI, and ColdStartBenchmark, which measures the library's start as the
# CLI pays it) are linked on Linux. The flags are `swift build` options, so the package's manifest stays free
# of unsafe flags and an app that depends on the package links with its own settings.
#
#   bv_fast_start_flags SCRATCH   # sets BV_FAST_START_FLAGS for `swift build -c release --scratch-path SCRATCH`
#
# Each flag's figure is in Docs/Benchmarks.md ("Starting the process"):
# - the C++ runtime the static Swift runtime needs (`-lstdc++`) is linked from the system's libstdc++.a, and
#   the unwinder with it (`-static-libgcc`), instead of loading libstdc++.so.6 and libgcc_s.so.1 at every
#   start (about 0.4 ms). The Swift runtime's link arguments name `-lstdc++` themselves, so the archive is
#   found under that name: a one-line linker script in the build folder;
# - lld packs the ~51,000 relative relocations into a 10 KB DT_RELR table instead of 1.2 MB of RELA entries
#   (36 fewer page faults, about 0.1 ms; needs glibc 2.36 or later, which the binary names in a
#   GLIBC_ABI_DT_RELR version reference, so an older loader refuses it by name);
# - the executable exports 3 symbols instead of the driver's `-export-dynamic` 9,183 (a 16 KB dynamic symbol
#   table instead of 720 KB; about 0.1 ms): exports serve in-process symbol lookups (`dlsym`, `dladdr`) that
#   these executables never make.
bv_fast_start_flags() { # scratch
    local scratch=$1 archive dir
    archive=$(clang -print-file-name=libstdc++.a 2>/dev/null || true)
    [ -f "$archive" ] || archive=$(gcc -print-file-name=libstdc++.a 2>/dev/null || true)
    if [ ! -f "$archive" ]; then
        echo "no static libstdc++.a (apt-get install libstdc++-12-dev)" >&2
        return 1
    fi
    dir=$(mkdir -p "$scratch/static-libstdc++" && cd "$scratch/static-libstdc++" && pwd)
    # Rewritten only when it changes: the linker script is an input of every release link.
    local script="INPUT($archive)"
    [ "$(cat "$dir/libstdc++.so" 2>/dev/null)" = "$script" ] || printf '%s\n' "$script" > "$dir/libstdc++.so"
    BV_FAST_START_FLAGS=(
        -Xlinker -L"$dir" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
        -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic
    )
}
