#!/usr/bin/env bash
# CI: an app that depends on BiometricsVault the way a user adds it, by URL and version
# (`.package(url:from:)`), builds and runs. The checkout's tracked files as they are now become the tag
# 99.0.0 of a throw-away bare repository, which the app names by its file:// URL; the app imports the two
# library products, runs a simulated-device flow (store behind biometrics, lock, a cancelled prompt, unlock)
# and prints one line that this script checks. What it catches: a product an app cannot resolve or build
# as a versioned dependency (unsafe flags, a target missing from the tag, a product that needs a module of
# the package's own build).
# The package's own dependencies resolve as the root's do (git's url.insteadOf mirror or the network); the
# dependency cache is off, so nothing of this throw-away repository stays in ~/.swiftpm.
#   bash scripts/extra-tests/15-app-by-url.sh      # SCRATCH=dir keeps the app's build (default: a temp dir)
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bv-app-by-url.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SCRATCH=${SCRATCH:-$WORK/app/.build}

# A commit of the working tree's tracked files (uncommitted changes included) without touching the
# branch, the index or the stash list; HEAD when there is nothing uncommitted.
commit=$(git stash create)
commit=${commit:-$(git rev-parse HEAD)}
git init -q --bare "$WORK/BiometricsVault.git"
# A shallow clone (as some CI checkouts are) can push only to a repository that takes shallow history.
git -C "$WORK/BiometricsVault.git" config receive.shallowUpdate true
git push -q "$WORK/BiometricsVault.git" "$commit:refs/tags/99.0.0"

mkdir -p "$WORK/app/Sources/VaultApp"
cat > "$WORK/app/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "VaultApp",
    platforms: [.macOS(.v13)],
    dependencies: [.package(url: "file://$WORK/BiometricsVault.git", from: "99.0.0")],
    targets: [
        .executableTarget(
            name: "VaultApp",
            dependencies: [
                .product(name: "BiometricsVault", package: "BiometricsVault"),
                .product(name: "BiometricsVaultTesting", package: "BiometricsVault"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
EOF
cat > "$WORK/app/Sources/VaultApp/main.swift" <<'EOF'
import BiometricsVault
import BiometricsVaultTesting

struct Login: Codable, Sendable, Equatable {
    var user: String
    var token: String
}

let device = SimulatedDevice(biometryType: .touchID)
let configuration = VaultConfiguration(
    store: device.store, authenticator: device.authenticator, service: "com.example.vault-app",
    clock: device.clock.vaultClock)
let login = Login(user: "alice", token: "t-1")

_ = try await VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration)
    .storeToBiometrics(credentials: login)
let locked = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration).lock()
guard case .locked = locked else { fatalError("expected a locked vault, got \(locked)") }
device.enqueue(.userCancel)
do {
    _ = try await locked.unlock()
    fatalError("a cancelled prompt unlocked the vault")
} catch let error as VaultError {
    print("cancelled: \(error.code)")
}
let unlocked = try await locked.unlock()
print("unlocked: \(try unlocked.credentials == login ? "same credentials" : "OTHER credentials"), prompts: \(device.promptCount)")
EOF

if ! swift build --package-path "$WORK/app" --scratch-path "$SCRATCH" --disable-dependency-cache >"$WORK/build.log" 2>&1; then
    grep -E "error:" "$WORK/build.log" | head -20 || true
    tail -20 "$WORK/build.log"
    exit 1
fi
if grep "warning:" "$WORK/build.log"; then
    echo "!! the app's build printed the warnings above: a dependent app must see none"
    exit 1
fi
output=$("$SCRATCH/debug/VaultApp")
echo "$output"
expected=$'cancelled: userCancel\nunlocked: same credentials, prompts: 3'
if [ "$output" != "$expected" ]; then
    echo "!! the app printed the above, expected:"
    echo "$expected"
    exit 1
fi
echo "== 15-app-by-url took $(($(date +%s) - start))s"
