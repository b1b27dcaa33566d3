#!/usr/bin/env bash
# Prints the package's public API, one declaration a line, sorted within each module: every Swift
# library module an app can import through the products (BiometricsVault with the modules it links, and
# BiometricsVaultTesting), and the in-no-product modules whose public surface must stay empty. Linux
# builds BiometricsVaultApple to nothing (its section here is empty); the Apple build's BiometricsVaultApple
# is listed last, read from BiometricsVaultAppleCheck, the Linux-only target that compiles the same sources
# against the Apple SDK stubs (Stubs/, Package.swift): the surface of iOS, macOS and visionOS, where the
# LocalAuthentication half is compiled (tvOS and watchOS have the Keychain half only). Its lines name
# modules as the Apple build would (BiometricsVaultApple, Security, ...), not as the stubs build does.
# The other modules are listed as Linux builds them: what they declare for Apple platforms only
# (`#if !os(Linux)` and `canImport(Darwin)` files: BiometricsVault's UnlockWindows+Other.swift,
# BiometricsVaultCore's InstallMarker.userDefaults(suiteName:), ...) no Linux build compiles, so it is not
# here. Read by swift-symbolgraph-extract from the modules of an existing debug build (the one
# scripts/test.sh makes, the check target with it): nothing is compiled again.
#   bash scripts/api/dump-public-api.sh [BUILD_BIN_DIR]    (default: `swift build --show-bin-path`)
# The committed baseline is scripts/api/public-api.txt; scripts/extra-tests/05-public-api.sh compares.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-$(swift build --show-bin-path)}
# The C targets' module maps live beside the build's real folder ($bin may be a folder of links).
build=${BV_API_BUILD_DIR:-$bin}
# The dependencies' checkouts (swift-crypto's C modules) are in the same scratch folder: <scratch>/<triple>/debug.
checkouts=$(realpath "$build")/../../checkouts
[ -d "$checkouts" ] || checkouts=.build/checkouts
modules=(
    BiometricsVaultCore BiometricsVault BiometricsVaultTesting
    BiometricsVaultFileStore BiometricsVaultTPM BiometricsVaultSecretService BiometricsVaultLinuxAuth
    BiometricsVaultService BiometricsVaultDBus BiometricsVaultAgent BiometricsVaultProcess BiometricsVaultApple
    BiometricsVaultJSON BiometricsVaultCredentialHelpers BiometricsVaultServiceDaemon BiometricsVaultSecretServiceProvider
    BiometricsVaultSSH
    BiometricsVaultAppleCheck
)
[ -d "$bin/Modules" ] || { echo "no build in $bin: run swift build first" >&2; exit 2; }
# The C modules the Swift modules import: the package's system-library shims and the module maps
# SwiftPM generated for its C targets (and swift-crypto's).
clang_args=()
while IFS= read -r map; do clang_args+=(-Xcc "-fmodule-map-file=$(realpath "$map")"); done < <(
    { ls Sources/C*/module.modulemap "$checkouts"/swift-crypto/Sources/*/include/module.modulemap || true
      find "$build/" -maxdepth 2 -name module.modulemap; } 2>/dev/null)
for flags in $(pkg-config --cflags-only-I gobject-2.0 2>/dev/null); do clang_args+=(-Xcc "$flags"); done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for module in "${modules[@]}"; do
    mkdir -p "$out/$module"
    swift-symbolgraph-extract -module-name "$module" -I "$bin/Modules" -target "$(uname -m)-unknown-linux-gnu" \
        -minimum-access-level public -skip-synthesized-members -module-cache-path "$out/cache" \
        "${clang_args[@]}" -output-dir "$out/$module" >"$out/$module.log" 2>&1 \
        || { cat "$out/$module.log" >&2; echo "swift-symbolgraph-extract failed for $module" >&2; exit 2; }
done
python3 - "$out" "${modules[@]}" <<'PY'
import json, os, re, sys
out, modules = sys.argv[1], sys.argv[2:]
# The stubs build stands for the Apple build: its module, and the stubs of the SDK modules, by the names
# they have there (in a conformance to a type of another module, say). Nothing else is rewritten.
apple_names = {"BiometricsVaultAppleCheck": "BiometricsVaultApple", "BiometricsVaultSecurityStubs": "Security",
               "BiometricsVaultLocalAuthenticationStubs": "LocalAuthentication",
               "BiometricsVaultCoreFoundationStubs": "CoreFoundation"}
def as_on_apple(line):
    return re.sub(r"\b(" + "|".join(apple_names) + r")\b", lambda m: apple_names[m.group(1)], line)
for module in modules:
    lines = set()
    folder = os.path.join(out, module)
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            graph = json.load(f)
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            path = ".".join(symbol["pathComponents"])
            declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
            lines.add(f"{path}: {' '.join(declaration.split())}")
        # A public type's conformances are API too (`Sendable`, `Codable`, ...).
        names = {symbol["identifier"]["precise"]: ".".join(symbol["pathComponents"]) for symbol in graph["symbols"]
                 if symbol.get("accessLevel") in ("public", "open")}
        for relation in graph.get("relationships", []):
            if relation["kind"] == "conformsTo" and relation["source"] in names:
                target = names.get(relation["target"]) or relation.get("targetFallback") or relation["target"]
                lines.add(f"{names[relation['source']]}: conforms to {target.split('.')[-1] if '.' in target and target.split('.')[0] == 'Swift' else target}")
    title = module
    if module == "BiometricsVaultAppleCheck":
        lines = {as_on_apple(line) for line in lines}
        title = "BiometricsVaultApple (Apple build, from the stubs)"
    conformances = sum(1 for line in lines if ": conforms to " in line)
    print(f"## {title}: {len(lines) - conformances} public declarations, {conformances} conformances")
    for line in sorted(lines):
        print(line)
    print()
PY
