# Sourced: `run_at_exit FUNCTION` makes FUNCTION the script's EXIT trap.
#
# A cleanup runs under the script's `set -e`, so a step that fails there (signalling a background job's
# process group that has already ended, a daemon already gone) would end the trap early, skip the steps
# after it, and turn the run's status into that step's failure. FUNCTION runs with errexit off, and the
# script ends with the status it had before the trap: a passing run stays passing, a failing one failing.
run_at_exit() {
    # shellcheck disable=SC2064  # $1 is expanded now, on purpose: the function to call.
    trap "run_at_exit_status=\$?; set +e; $1; exit \$run_at_exit_status" EXIT
}
