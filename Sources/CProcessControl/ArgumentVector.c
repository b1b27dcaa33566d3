// The command line for the Swift runtime, recorded where glibc hands it over.
//
// On Linux the Swift runtime finds argv at start-up with a static constructor (ArgvGrabber, in the
// runtime's CommandLine.cpp) that reads /proc/self/maps line by line to locate the stack: about 0.13 ms
// of every run of the CLI, measured with uprobes (Docs/Benchmarks.md). glibc passes argc and argv to
// ELF constructors, so this file records them there and defines the function the standard library asks
// (`_swift_stdlib_getUnsafeArgvArgc`, Swift calling convention). With the static Swift runtime the
// linker then never loads CommandLine.cpp's object file, so its constructor does not run; with a
// dynamic runtime either definition returns the same vector. Every golden CLI test reads its arguments
// through this.
#ifdef __linux__
static char **recordedArgv;
static int recordedArgc;

// Priority 101, the first one programs may use: before every default-priority constructor, so no
// constructor can ask for the arguments before they are recorded.
__attribute__((constructor(101))) static void bv_record_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    recordedArgc = argc;
    recordedArgv = argv;
}

__attribute__((swiftcall)) char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    *outArgLen = recordedArgc;
    return recordedArgv;
}
#endif
