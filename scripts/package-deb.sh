#!/usr/bin/env bash
# Builds a Debian package of the CLI and prints the .deb's path as its last line.
#   bash scripts/package-deb.sh            # OUT=dir (default .build-deb), SCRATCH=.build-release, VERSION=...
#   BIN=path bash scripts/package-deb.sh   # package this already built binary instead of building one
# Contents (Debian's standard places):
#   /usr/bin/biometrics-vault                  release build, Swift runtime linked statically
#   /usr/bin/git-credential-biometrics-vault   link: `git config credential.helper biometrics-vault`
#   /usr/bin/docker-credential-biometrics-vault link: `"credHelpers": {"REGISTRY": "biometrics-vault"}`
#   /usr/share/man/man1/biometrics-vault.1.gz  and bash / zsh / fish completions (Docs/cli, generated);
#                                              git-credential-biometrics-vault.1.gz links to it
#   /etc/pam.d/biometrics-vault                PAM service (a conffile)
#   /usr/lib/systemd/user/biometrics-vault-prompter.service, /etc/xdg/autostart/biometrics-vault-prompter.desktop
#                                              the prompter, started with every graphical session
#   /usr/lib/systemd/user/biometrics-vault-ssh-agent.{socket,service}
#                                              the SSH agent, socket-activated (not enabled: Docs/SSHAgent.md)
#   /usr/share/polkit-1/actions/io.github.biometricsvault.policy
#   /usr/lib/systemd/user/biometrics-vault-agent.service   the unlock-window agent as a user unit (not enabled:
#                                              `systemctl --user enable --now biometrics-vault-agent.service`)
#   /usr/share/biometrics-vault/               the same two files, for `biometrics-vault setup`
#   /usr/lib/systemd/user/biometrics-vault-secret-service.service, /usr/share/biometrics-vault/dbus-1/
#   org.freedesktop.secrets.service            the Secret Service provider's unit and activation file, which a
#                                              user links into ~/.local/share/dbus-1/services to choose it
#   /usr/share/doc/biometrics-vault/copyright  machine-readable (DEP-5): MIT (LICENSE), and the statically
#                                              linked Swift runtime and packages under Apache-2.0
#   /usr/share/doc/biometrics-vault/changelog.Debian.gz
# Depends is computed by dpkg-shlibdeps from the binary's shared libraries (libgcrypt, GLib/GIO, libc), plus
# libpam0g, which the CLI opens with dlopen when it authenticates the owner (dpkg-shlibdeps cannot see it).
# tpm2-tss is opened with dlopen only when a command uses the TPM (`key`, `doctor`, a TPM-sealed store): Suggests.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SCRATCH=${SCRATCH:-.build-release}
OUT=${OUT:-.build-deb}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)  # relative to the repository, or absolute
PACKAGE=biometrics-vault
ARCH=$(dpkg --print-architecture)
# The CLI's version (`biometrics-vault --version`), then the commit: sorts before the release itself
# (`~`), and by commit date between two of them. `-1`: the Debian revision (the packaging is not part of
# the upstream version, so the changelog is changelog.Debian.gz).
UPSTREAM=$(sed -n 's/^ *static let current = "\(.*\)"$/\1/p' Sources/biometrics-vault/Support/CLIVersion.swift)
[ -n "$UPSTREAM" ] || { echo "no version in Sources/biometrics-vault/Support/CLIVersion.swift" >&2; exit 1; }
VERSION=${VERSION:-$UPSTREAM~git$(git log -1 --format=%cd --date=format:%Y%m%d%H%M%S).$(git rev-parse --short=10 HEAD)-1}

for tool in dpkg-deb dpkg-shlibdeps gzip; do
    command -v "$tool" >/dev/null || { echo "$tool missing (apt-get install dpkg-dev)" >&2; exit 1; }
done

if [ -z "${BIN:-}" ]; then
    # The release link: static Swift runtime, and the fast-start flags (the C++ runtime linked in, packed
    # relocations, no exported symbols; each one's reason is in the file).
    # shellcheck source=lib/fast-start-link-flags.sh
    source scripts/lib/fast-start-link-flags.sh
    bv_fast_start_flags "$SCRATCH"
    swift build -c release --product "$PACKAGE" --static-swift-stdlib --scratch-path "$SCRATCH" "${BV_FAST_START_FLAGS[@]}" >&2
    BIN="$(swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" "${BV_FAST_START_FLAGS[@]}" --show-bin-path)/$PACKAGE"
fi

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/bv-deb-XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
PKG=$STAGE/$PACKAGE
install -d -m 755 "$PKG/DEBIAN" "$PKG/usr/bin" "$PKG/usr/share/man/man1" \
    "$PKG/usr/share/bash-completion/completions" "$PKG/usr/share/zsh/vendor-completions" \
    "$PKG/usr/share/fish/vendor_completions.d" "$PKG/etc/pam.d" "$PKG/usr/share/polkit-1/actions" \
    "$PKG/usr/share/$PACKAGE" "$PKG/usr/share/doc/$PACKAGE" "$PKG/usr/share/lintian/overrides" \
    "$PKG/usr/lib/systemd/user" "$PKG/usr/lib/systemd/system" "$PKG/usr/lib/sysusers.d" "$PKG/usr/lib/tmpfiles.d" \
    "$PKG/usr/share/dbus-1/system.d" "$PKG/usr/share/dbus-1/system-services" "$PKG/usr/share/polkit-1/rules.d"

install -m 755 -s "$BIN" "$PKG/usr/bin/$PACKAGE"
strip --remove-section=.comment "$PKG/usr/bin/$PACKAGE"  # compiler version strings: nothing runs them
ln -s "$PACKAGE" "$PKG/usr/bin/git-credential-$PACKAGE"
ln -s "$PACKAGE" "$PKG/usr/bin/docker-credential-$PACKAGE"
# An empty line is not mdoc (groff warns, and lintian with it): a paragraph break.
sed 's/^$/.Pp/' Docs/cli/biometrics-vault.1 | gzip -9n > "$PKG/usr/share/man/man1/$PACKAGE.1.gz"
ln -s "$PACKAGE.1.gz" "$PKG/usr/share/man/man1/git-credential-$PACKAGE.1.gz"
# Sourced by bash-completion, never run: without the generator's #! line.
sed '1{/^#!/d}' Docs/cli/completions/biometrics-vault.bash > "$PKG/usr/share/bash-completion/completions/$PACKAGE"
chmod 644 "$PKG/usr/share/bash-completion/completions/$PACKAGE"
install -m 644 Docs/cli/completions/_biometrics-vault "$PKG/usr/share/zsh/vendor-completions/_$PACKAGE"
install -m 644 Docs/cli/completions/biometrics-vault.fish "$PKG/usr/share/fish/vendor_completions.d/$PACKAGE.fish"
install -m 644 Resources/linux/biometrics-vault "$PKG/etc/pam.d/$PACKAGE"
install -m 644 Resources/linux/io.github.biometricsvault.policy "$PKG/usr/share/polkit-1/actions/"
install -m 644 Resources/linux/biometrics-vault Resources/linux/io.github.biometricsvault.policy "$PKG/usr/share/$PACKAGE/"
install -m 644 Resources/linux/$PACKAGE-agent.service "$PKG/usr/lib/systemd/user/"
# The vault service (Docs/VaultService.md): its unit, user, state directory, bus policy and activation,
# and polkit action and rule. The postinst creates the user and the directory; nothing runs until a
# client calls it (D-Bus activation).
SERVICE=Resources/linux/service
install -m 644 $SERVICE/$PACKAGE.service "$PKG/usr/lib/systemd/system/$PACKAGE.service"
install -m 644 $SERVICE/$PACKAGE.sysusers "$PKG/usr/lib/sysusers.d/$PACKAGE.conf"
install -m 644 $SERVICE/$PACKAGE.tmpfiles "$PKG/usr/lib/tmpfiles.d/$PACKAGE.conf"
install -m 644 $SERVICE/io.github.biometricsvault.Vault1.conf "$PKG/usr/share/dbus-1/system.d/"
install -m 644 $SERVICE/io.github.biometricsvault.Vault1.service "$PKG/usr/share/dbus-1/system-services/"
install -m 644 $SERVICE/io.github.biometricsvault.vault-service.policy "$PKG/usr/share/polkit-1/actions/"
install -m 644 $SERVICE/50-$PACKAGE.rules "$PKG/usr/share/polkit-1/rules.d/"
# The Secret Service provider (Docs/SecretServiceProvider.md): its user unit, and its activation file
# where a user who chooses it links it from (never in the session bus's own directory, where it would
# compete with gnome-keyring's).
install -m 644 Resources/linux/secret-service/$PACKAGE-secret-service.service "$PKG/usr/lib/systemd/user/"
install -d "$PKG/usr/share/$PACKAGE/dbus-1"
install -m 644 Resources/linux/secret-service/org.freedesktop.secrets.service "$PKG/usr/share/$PACKAGE/dbus-1/"
# The prompter (Docs/VaultService.md, "Where prompts appear"): a user unit every graphical session of a
# systemd user manager starts (enabled for all users by the link in graphical-session.target.wants), and
# an autostart entry for the sessions that have no such target (it says to skip it where they do).
install -m 644 Resources/linux/prompter/$PACKAGE-prompter.service "$PKG/usr/lib/systemd/user/"
install -d "$PKG/usr/lib/systemd/user/graphical-session.target.wants" "$PKG/etc/xdg/autostart"
ln -s "../$PACKAGE-prompter.service" "$PKG/usr/lib/systemd/user/graphical-session.target.wants/$PACKAGE-prompter.service"
install -m 644 Resources/linux/prompter/$PACKAGE-prompter.desktop "$PKG/etc/xdg/autostart/"
# The SSH agent over the vault service's keys (Docs/SSHAgent.md): a socket-activated user unit, which a
# user enables (`systemctl --user enable --now biometrics-vault-ssh-agent.socket`).
install -m 644 Resources/linux/ssh-agent/$PACKAGE-ssh-agent.socket Resources/linux/ssh-agent/$PACKAGE-ssh-agent.service \
    "$PKG/usr/lib/systemd/user/"
# Maintainer scripts (Resources/linux/service/deb): the system user and state directory also where
# systemd's tools are missing; the service stopped before its files go; the state directory (every
# user's items) removed on purge only.
install -m 755 $SERVICE/deb/postinst $SERVICE/deb/prerm $SERVICE/deb/postrm "$PKG/DEBIAN/"
# Machine-readable (DEP-5). The MIT text comes from LICENSE; the Apache-2.0 text is in common-licenses
# on every Debian system.
{
    cat <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: biometrics-vault
Upstream-Contact: The BiometricsVault authors
Comment: The binary links the Swift runtime and standard library, swift-foundation,
 swift-argument-parser and swift-crypto (with BoringSSL) statically; their terms
 follow the project's own.

Files: *
Copyright: 2026 The BiometricsVault authors
License: Expat

Files: swift-runtime/* swift-foundation/* swift-argument-parser/* swift-crypto/*
Copyright: Apple Inc. and the Swift project authors
License: Apache-2.0 with Runtime-Library exception
 Licensed under the Apache License, Version 2.0 (the "License"); you may not use
 these files except in compliance with the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0 can be
 found in "/usr/share/common-licenses/Apache-2.0".
 .
 As an exception, if you use this Software to compile your source code and
 portions of this Software are embedded into the binary product as a result, you
 may redistribute such product without providing attribution as would otherwise
 be required by Sections 4(a), 4(b) and 4(d) of the License.

Files: swift-crypto/boringssl/*
Copyright: The BoringSSL authors; The OpenSSL Project; Eric Young
License: Apache-2.0 and ISC and OpenSSL
 BoringSSL is licensed under the Apache License, Version 2.0, with parts under
 the ISC license and the original OpenSSL and SSLeay licenses, as stated in
 swift-crypto's Sources/CCryptoBoringSSL/LICENSE.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0 can be
 found in "/usr/share/common-licenses/Apache-2.0".

License: Expat
EOF
    # The license text itself, from LICENSE (from "Permission" on), indented as DEP-5 asks.
    sed -n '/^Permission/,$p' LICENSE | sed 's/^$/./; s/^/ /'
} > "$PKG/usr/share/doc/$PACKAGE/copyright"
chmod 644 "$PKG/usr/share/doc/$PACKAGE/copyright"
# Debian policy 12.7: every package has a changelog. One entry, for the packaged commit.
DATE=$(git log -1 --format=%cD 2>/dev/null || date -R)
cat <<EOF | gzip -9n > "$PKG/usr/share/doc/$PACKAGE/changelog.Debian.gz"
$PACKAGE ($VERSION) unstable; urgency=medium

  * Package of commit $(git rev-parse --short=10 HEAD 2>/dev/null || echo unknown): see the project's history.

 -- BiometricsVault contributors <maintainers@biometricsvault.invalid>  $DATE
EOF
chmod 644 "$PKG/usr/share/doc/$PACKAGE/changelog.Debian.gz"
cat > "$PKG/usr/share/lintian/overrides/$PACKAGE" <<'EOF'
# Built from the source tree, never uploaded to Debian: there is no ITP bug for the changelog to close.
biometrics-vault: initial-upload-closes-no-bugs
EOF
chmod 644 "$PKG/usr/share/lintian/overrides/$PACKAGE"
printf '%s\n' "/etc/pam.d/$PACKAGE" "/etc/xdg/autostart/$PACKAGE-prompter.desktop" > "$PKG/DEBIAN/conffiles"

# dpkg-shlibdeps reads debian/control from the current directory: give it a minimal one.
install -d "$STAGE/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$PACKAGE" "$PACKAGE" > "$STAGE/debian/control"
DEPENDS=$(cd "$STAGE" && dpkg-shlibdeps -O "$PKG/usr/bin/$PACKAGE" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$DEPENDS" ] || { echo "dpkg-shlibdeps found no dependencies" >&2; exit 1; }
DEPENDS="$DEPENDS, libpam0g"
# dpkg-shlibdeps derives libc6's version from versioned symbols only. The packed relative relocations
# of the release link (scripts/lib/fast-start-link-flags.sh) need glibc 2.36, which the binary states
# in a symbol-less GLIBC_ABI_DT_RELR version reference that dpkg-shlibdeps does not map: raise it here.
if objdump -p "$PKG/usr/bin/$PACKAGE" | grep -q GLIBC_ABI_DT_RELR; then
    LIBC=$(printf '%s\n' "$DEPENDS" | tr ',' '\n' | sed -n 's/^ *libc6 (>= \([^)]*\)).*/\1/p')
    if [ -n "$LIBC" ] && dpkg --compare-versions "$LIBC" lt 2.36; then
        DEPENDS=$(printf '%s\n' "$DEPENDS" | sed "s/libc6 (>= $LIBC)/libc6 (>= 2.36)/")
    fi
fi

(cd "$PKG" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$PKG/DEBIAN/md5sums"
SIZE=$(du -sk --exclude=DEBIAN "$PKG" | cut -f1)
cat > "$PKG/DEBIAN/control" <<EOF
Package: $PACKAGE
Version: $VERSION
Architecture: $ARCH
Maintainer: BiometricsVault contributors <maintainers@biometricsvault.invalid>
Installed-Size: $SIZE
Depends: $DEPENDS
Suggests: libtss2-esys-3.0.2-0, libtss2-tctildr0, libtss2-mu0, libtss2-rc0, libtss2-tcti-device0
Recommends: fprintd, git
Section: utils
Priority: optional
Description: keep credentials in the keyring, optionally behind your fingerprint
 biometrics-vault stores credentials (any JSON value) in the Secret Service
 (GNOME Keyring, KWallet) or in an encrypted file store, optionally protected
 by a fingerprint through fprintd, with the login password (PAM or polkit) as
 the fallback. It is a git credential helper (credential.helper
 biometrics-vault) and runs commands with secrets in their environment
 (biometrics-vault exec).
EOF

DEB="$OUT/${PACKAGE}_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zgzip --build "$PKG" "$DEB" >&2
echo "$DEB"
