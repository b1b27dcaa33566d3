// What an app's tests import: the simulated device and the conformance suites, with the core re-exported,
// so that a test importing this module alone (as DESIGN.md's example does) sees the vault's API.
@_exported import BiometricsVaultCore
