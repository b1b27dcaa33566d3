// Shared by every fuzz target: starting libFuzzer from a Swift `main`, and failing loudly.
//
// SwiftPM links an executable's own `main` (it aliases `main` to `<Module>_main`), so libFuzzer's
// `main` from its runtime never runs. Each target therefore calls `LLVMFuzzerRunDriver` itself, the
// entry point libFuzzer provides for programs with their own `main`. The targets also export
// `LLVMFuzzerTestOneInput`, which libFuzzer's runtime references at link time.
//
// libFuzzer is linked by the build, not by the manifest: the fuzz builds (scripts/lib/test-build-flags.sh,
// used by scripts/fuzz.sh and scripts/test.sh) define BV_LIBFUZZER and give the linker libFuzzer's archive,
// from which only these targets take it (nothing else calls `LLVMFuzzerRunDriver`). Any other build makes
// each target a program that says how to build it for fuzzing.
#if os(Linux)
import Glibc

/// The signature libFuzzer calls for each input.
public typealias FuzzOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

#if BV_LIBFUZZER
@_silgen_name("LLVMFuzzerRunDriver")
private func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: FuzzOneInput
) -> CInt

/// Runs libFuzzer with the process's arguments (corpus folders, `-max_total_time=`, ...) and exits
/// with its status.
public func runLibFuzzer(_ callback: FuzzOneInput) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(llvmFuzzerRunDriver(&argc, &argv, callback))
}
#else
/// Exits with status 2: this build has no libFuzzer (`bash scripts/fuzz.sh` builds the targets with it).
public func runLibFuzzer(_ callback: FuzzOneInput) -> Never {
    let message = Array("\(CommandLine.arguments[0]): built without libFuzzer; run it through scripts/fuzz.sh\n".utf8)
    _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}
#endif

/// Stops the run with a crash report (libFuzzer saves the input) when an invariant does not hold.
/// `fatalError` is used on purpose: an input that breaks an invariant is a finding, not an error to handle.
public func fuzzRequire(_ condition: Bool, _ invariant: @autoclosure () -> String) {
    if !condition { fatalError("fuzz invariant violated: \(invariant())") }
}
#endif
