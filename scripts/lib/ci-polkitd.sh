# Sourced: the polkitd that CI starts (scripts/setup/30-fprintd-polkit.sh), its pid and log in
# $BV_FPRINT_WORK. A polkitd CI did not start (the machine's own) is never stopped from here.

CI_POLKITD_WORK=${BV_FPRINT_WORK:-/run/biometrics-vault-ci}

ci_polkitd_busy() { busctl --system status org.freedesktop.PolicyKit1 >/dev/null 2>&1; }

# Whether the polkitd that runs is one CI started.
ci_polkitd_ours() { [ -s "$CI_POLKITD_WORK/polkitd.pid" ] && kill -0 "$(cat "$CI_POLKITD_WORK/polkitd.pid")" 2>/dev/null; }

# Stops the polkitd CI started, if one runs, and starts one where no polkitd owns the name: a new
# polkitd reads every rule as it is now.
ci_polkitd_restart() {
    if ci_polkitd_ours; then
        kill "$(cat "$CI_POLKITD_WORK/polkitd.pid")"
        for _ in $(seq 50); do ci_polkitd_busy || break; sleep 0.1; done
    fi
    ci_polkitd_busy && return 0
    mkdir -p "$CI_POLKITD_WORK"
    /usr/lib/polkit-1/polkitd --no-debug >"$CI_POLKITD_WORK/polkitd.log" 2>&1 &
    echo $! >"$CI_POLKITD_WORK/polkitd.pid"
    for _ in $(seq 100); do
        if ci_polkitd_busy; then
            echo "started polkitd (pid $(cat "$CI_POLKITD_WORK/polkitd.pid"))"
            return 0
        fi
        sleep 0.1
    done
    echo "polkitd did not appear on the system bus"
    return 1
}
