# Sourced by scripts/install-deps.sh and the setup scripts: `apt-get update` at most once per test run.
# scripts/test.sh points BV_APT_UPDATED at a file in the run's temporary directory; the first script that
# needs a package updates the index and creates it, the others reuse that index (each update costs
# seconds on a fresh machine). Run alone, a script always updates before installing.
apt_update_once() {
    if [ -n "${BV_APT_UPDATED:-}" ] && [ -e "$BV_APT_UPDATED" ]; then return 0; fi
    ${SUDO:-} apt-get update -qq
    if [ -n "${BV_APT_UPDATED:-}" ]; then touch "$BV_APT_UPDATED"; fi
}
