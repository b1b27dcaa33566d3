#!/usr/bin/env bash
# Type-checks the Apple backend (Keychain + LocalAuthentication) on Linux: compiles
# Sources/BiometricsVaultApple against the API-shape stubs in Stubs/ with APPLE_SDK_STUBS defined, every
# warning an error (a deprecated Apple API is a failure). Then checks availability (below), and that the
# shipped Apple target still compiles to nothing here. What this cannot check (runtime behaviour,
# entitlements): Docs/Apple.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=.build-apple-check
swift build --scratch-path "$scratch" --target BiometricsVaultAppleCheck -Xswiftc -warnings-as-errors

# Availability. Linux ignores `@available(iOS 18, …)`, so the stubs' marks above the package's deployment
# floor become custom availability domains (one per platform version, e.g. iOS_18), the backend's
# `#available(…)` guards enable the domains their versions cover, and the backend is type-checked again
# against the rewritten stubs: a newer API outside a guard that covers it, on every platform it names,
# fails here. Stubs and backend form one module (a binary module with custom domains crashes the 6.3
# compiler when it is imported).
available="$scratch/availability"
rm -rf "$available" && mkdir -p "$available"
for dir in Stubs/CoreFoundationStubs Stubs/SecurityStubs Stubs/LocalAuthenticationStubs Sources/BiometricsVaultApple; do
    mkdir -p "$available/$dir" && cp "$dir"/*.swift "$available/$dir/"
done
# The floors: Package.swift's `platforms:` (`.iOS(.v16)` is iOS 16, `.macOS(.v10_15)` macOS 10.15).
floors=$(grep -o '\.\(iOS\|macOS\|visionOS\|tvOS\|watchOS\)(\.v[0-9_]*)' Package.swift | sed 's/^\.\(.*\)(\.v\(.*\))$/\1=\2/; s/_/./g')
[ "$(echo "$floors" | wc -l)" -eq 5 ] || { echo "cannot read the five deployment floors from Package.swift" >&2; exit 1; }
domains=$(FLOORS="$floors" perl -e '
    my %floor = map { split /=/ } split /\n/, $ENV{FLOORS};
    my $platform = qr/iOS|macOS|visionOS|tvOS|watchOS/;
    sub newer { my ($v, $f) = @_; my @v = split /\./, $v; my @f = split /\./, $f;
        for my $i (0 .. 2) { my ($x, $y) = ($v[$i] // 0, $f[$i] // 0); return $x > $y if $x != $y } 0 }
    sub domain { my ($p, $v) = @_; $v =~ s/(\.0)+$//; $v =~ tr/./_/; "${p}_$v" }
    sub pairs { map { [split / /] } split /, /, $_[0] }
    my (%domains, %text);
    for my $file (@ARGV) { local $/; open my $in, "<", $file or die; $text{$file} = <$in> }
    for my $text (values %text) {
        while ($text =~ /\@available\(((?:(?:$platform) [\d.]+, )+)\*\)/g) {
            for (pairs($1)) { my ($p, $v) = @$_; $domains{domain($p, $v)} = [$p, $v] if newer($v, $floor{$p}) }
        }
    }
    my $mark = sub { join " ", map { "\@available(" . domain(@$_) . ")" } grep { newer($_->[1], $floor{$_->[0]}) } pairs($_[0]) };
    my $guard = sub { my %g = map { $_->[0] => $_->[1] } pairs($_[0]);
        my @on = grep { my ($p, $v) = @{$domains{$_}}; exists $g{$p} && !newer($v, $g{$p}) } sort keys %domains;
        @on ? join(", ", map { "#available($_)" } @on) : "true" };
    for my $file (keys %text) {
        my $text = $text{$file};
        $text =~ s/\@available\(((?:(?:$platform) [\d.]+, )+)\*\)/$mark->($1)/ge;
        $text =~ s/#available\(((?:(?:$platform) [\d.]+, )+)\*\)/$guard->($1)/ge;
        # Versioned deprecations (`@available(iOS, introduced: 9.0, deprecated: 18.0)`) are above the floor
        # and draw no warning there: dropped.
        $text =~ s/\@available\((?:$platform), introduced:[^)]*\)//g;
        # `@available(tvOS, unavailable)`: the backend is compiled out there by its `#if`; nothing to check.
        $text =~ s/\@available\((?:$platform), unavailable\)//g;
        $text =~ s/^(?:\@_exported )?import BiometricsVault(?:CoreFoundation|Security|LocalAuthentication)Stubs\b//mg;
        # A mark in another form would pass unchecked: refuse it.
        die "$file: an availability mark this check does not understand: $&\n" if $text =~ /[\@#]available\((?:$platform)\b[^)]*\)/;
        open my $out, ">", $file or die; print $out $text;
    }
    print join(" ", sort keys %domains), "\n";
' "$available"/Stubs/*/*.swift "$available"/Sources/BiometricsVaultApple/*.swift)
flags=(-swift-version 6 -enable-experimental-feature CustomAvailability -enable-upcoming-feature ExistentialAny
    -enable-upcoming-feature MemberImportVisibility)
for domain in $domains; do flags+=(-Xfrontend -define-dynamic-availability-domain -Xfrontend "$domain"); done
# `package` declarations of the core are visible under the package name SwiftPM compiled it with.
package_name=$(grep -o -- '"-module-name","BiometricsVaultCore"[^]]*' "$scratch/debug.yaml" | head -n 1 \
    | grep -o -- '-package-name","[^"]*' | cut -d'"' -f3)
swiftc -typecheck -parse-as-library -module-name BiometricsVaultAppleCheck -package-name "$package_name" -D APPLE_SDK_STUBS \
    "${flags[@]}" -I "$scratch/debug/Modules" "$available"/Stubs/*/*.swift "$available"/Sources/BiometricsVaultApple/*.swift
echo "Availability: every API newer than the deployment floor ($domains) is used inside a guard that covers it."

swift build --scratch-path "$scratch" --target BiometricsVaultApple
# The objects of the current sources only (a stale object of a deleted file must not count).
objects=""
for source in Sources/BiometricsVaultApple/*.swift; do
    objects="$objects $scratch/debug/BiometricsVaultApple.build/$(basename "$source").o"
done
# The toolchain ships llvm-nm beside swift; binutils' nm works too.
nm_tool="$(dirname "$(readlink -f "$(command -v swift)")")/llvm-nm"
[ -x "$nm_tool" ] || nm_tool=nm
# shellcheck disable=SC2086
defined=$("$nm_tool" --defined-only $objects | grep -c ' [TDBR] ' || true)
if [ "$defined" -ne 0 ]; then
    echo "BiometricsVaultApple defines $defined symbols on Linux; its files must be wholly inside #if canImport(Security) || APPLE_SDK_STUBS" >&2
    exit 1
fi
echo "Apple backend type-checks against the stubs; the shipped Apple target is empty on Linux."
