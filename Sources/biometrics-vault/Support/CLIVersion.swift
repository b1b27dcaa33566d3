/// The CLI's version: `biometrics-vault --version` prints it, and scripts/package-deb.sh builds the
/// .deb's version from it (`VERSION~gitDATE.COMMIT`). Raise it with each release.
enum CLIVersion {
    static let current = "0.1.0"
}
