// Shared by every fuzz target: starting libFuzzer from a Swift `main`, and failing loudly.
//
// SwiftPM links an executable's own `main` (it aliases `main` to `<Module>_main`), so libFuzzer's
// `main` from its runtime never runs. Each target therefore calls `LLVMFuzzerRunDriver` itself, the
// entry point libFuzzer provides for programs with their own `main`. The targets also export
// `LLVMFuzzerTestOneInput`, which libFuzzer's runtime references at link time.
#if os(Linux)
import Glibc

/// The signature libFuzzer calls for each input.
public typealias FuzzOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

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

/// Stops the run with a crash report (libFuzzer saves the input) when an invariant does not hold.
/// `fatalError` is used on purpose: an input that breaks an invariant is a finding, not an error to handle.
public func fuzzRequire(_ condition: Bool, _ invariant: @autoclosure () -> String) {
    if !condition { fatalError("fuzz invariant violated: \(invariant())") }
}
#endif
