# shellcheck shell=bash disable=SC2015  # `[ check ] && [ check ] || fail`: a failing check fails, on purpose
# Sourced: runs OTHER PEOPLE'S Secret Service clients and their own test suites against whatever process
# owns org.freedesktop.secrets on the session bus at $DBUS_SESSION_BUS_ADDRESS (gnome-keyring, or our own
# `biometrics-vault secret-service`). Each ss_client_* function runs one client, prints one `ok`/`FAIL`
# line with its time (and what it learned: skipped tests, ...), and on failure returns 1 after the tail of
# the client's output; its log is kept then (path printed), removed on success (BV_SS_CLIENTS_KEEP=1 keeps
# it). Every item a function stores carries a unique run id and is removed again, pass or fail. Each
# client gets BV_SS_CLIENTS_TIMEOUT seconds (300), then fails.
#
#   ss_client_secret_tool          secret-tool store/lookup/search/clear (libsecret-tools)
#   ss_client_python_keyring       python keyring's SecretService backend      (BV_PYTHON_KEYRING, 20-secret-service.sh)
#   ss_client_secretstorage_suite  SecretStorage's own tests/run_tests.py       (BV_SECRETSTORAGE_*, 60-secret-service-clients.sh)
#   ss_client_git_libsecret_suite  git's t0303 with git-credential-libsecret    (BV_GIT_SUITE_DIR, 50-git-credential-suite.sh;
#                                                                                BV_GIT_LIBSECRET_DIR, 60-secret-service-clients.sh)
#   ss_client_docker_secretservice skopeo login/--get-login/logout through credHelpers -> docker-credential-secretservice
#                                  (BV_DOCKER_REGISTRY*, 50-docker-registry.sh)
#   ss_clients_run_all             all of the above; nonzero when any failed
#
#   source scripts/lib/secret-service-clients.sh
#   ss_clients_load_env "$BV_ENV_FILE"   # the setup scripts' variables; keeps a DBUS_SESSION_BUS_ADDRESS already set
#   ss_clients_run_all
#
# Usable under the caller's `set -euo pipefail` or without it, in conditions too: each client runs in a
# bash of its own with errexit on. It sees the caller's exported environment plus DBUS_SESSION_BUS_ADDRESS
# and every BV_* variable.

# Sources an env file of the setup scripts (KEY=value lines) without letting it move the bus: the file
# holds 20-secret-service.sh's DBUS_SESSION_BUS_ADDRESS (gnome-keyring's bus), and a caller that pointed
# DBUS_SESSION_BUS_ADDRESS at another provider keeps it.
ss_clients_load_env() {
    local file=${1:-${BV_ENV_FILE:-}} bus=${DBUS_SESSION_BUS_ADDRESS:-}
    [ -n "$file" ] && [ -s "$file" ] || { echo "ss_clients_load_env: no env file ($file)" >&2; return 1; }
    set -a
    # shellcheck disable=SC1090
    source "$file"
    set +a
    if [ -n "$bus" ]; then export DBUS_SESSION_BUS_ADDRESS=$bus; fi
}

# Who owns org.freedesktop.secrets: "comm (pid N)"; nonzero when nobody does.
ss_clients_provider() {
    [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] || { echo "DBUS_SESSION_BUS_ADDRESS is not set"; return 1; }
    local pid
    pid=$(gdbus call --session --timeout 5 --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets 2>&1) \
        || { echo "nobody owns org.freedesktop.secrets on $DBUS_SESSION_BUS_ADDRESS: $pid"; return 1; }
    pid=$(sed -E 's/.*uint32 ([0-9]+).*/\1/' <<<"$pid")
    echo "$(cat "/proc/$pid/comm" 2>/dev/null || echo '?') (pid $pid)"
}

_SS_CLIENTS_LIB=$(realpath "${BASH_SOURCE[0]}")
_ss_now_ms() { date +%s%3N; }

# _ss_clients_run NAME BODY: runs function BODY in a subshell (errexit on) in a fresh work directory,
# its output to a log there; prints the verdict line and, on failure, the log's tail.
_ss_clients_run() {
    local name=$1 body=$2 work start status provider errexit=0 elapsed
    case $- in *e*) errexit=1 ;; esac
    if ! provider=$(ss_clients_provider); then
        echo "FAIL $name: $provider"
        return 1
    fi
    work=$(mktemp -d "${TMPDIR:-/tmp}/bv-ss-client.XXXXXX")
    start=$(_ss_now_ms)
    set +e
    # A bash of its own, not a subshell: a subshell's `set -e` is ignored when the caller runs the function
    # in a condition (`ss_client_x || ...`, `if ss_client_x`), and a failing step would go unnoticed.
    (
        for var in DBUS_SESSION_BUS_ADDRESS "${!BV_@}"; do export "${var?}"; done
        # Bounded: a provider that never answers (a prompt nobody sees) fails the client, not the run.
        # shellcheck disable=SC2016  # expanded by that bash
        exec timeout -k 5 "${BV_SS_CLIENTS_TIMEOUT:-300}" \
            bash -c 'set -euo pipefail; source "$0"; cd "$2"; "$1" "$2"' "$_SS_CLIENTS_LIB" "$body" "$work"
    ) > "$work/log" 2>&1 < /dev/null
    status=$?
    [ "$status" != 124 ] || echo "(timed out after ${BV_SS_CLIENTS_TIMEOUT:-300} s: BV_SS_CLIENTS_TIMEOUT)" >> "$work/log"
    [ "$errexit" = 1 ] && set -e
    elapsed=$(( $(_ss_now_ms) - start ))
    elapsed="$((elapsed / 1000)).$(printf %03d $((elapsed % 1000)) | cut -c1)s"
    if [ "$status" -eq 0 ]; then
        echo "ok   $name ($elapsed, provider $provider)"
        # Lines a body marks with "#> " are its findings (skipped tests, edges it could not check).
        sed -n 's/^#> /     /p' "$work/log"
        if [ "${BV_SS_CLIENTS_KEEP:-0}" = 1 ]; then echo "     log: $work/log"; else rm -rf "$work"; fi
        return 0
    fi
    echo "FAIL $name ($elapsed, status $status, provider $provider); last ${BV_SS_CLIENTS_TAIL:-40} lines of $work/log:"
    tail -n "${BV_SS_CLIENTS_TAIL:-40}" "$work/log" | sed 's/^/     | /'
    return 1
}

_ss_fail() { echo "FAILED CHECK: $*" >&2; exit 1; }
_ss_run_id() { echo "bv-ss-$$-$RANDOM$RANDOM"; }

# --- secret-tool --------------------------------------------------------------------------------------

ss_client_secret_tool() { _ss_clients_run secret-tool _ss_body_secret_tool; }
_ss_body_secret_tool() {
    # Not local: the EXIT trap reads them after the function returned (the subshell ends then).
    local i n status
    rid=$(_ss_run_id)
    trap 'secret-tool clear bv-ss-client "$rid" 2>/dev/null || true' EXIT
    command -v secret-tool >/dev/null || _ss_fail "secret-tool is not installed (libsecret-tools)"
    # Secrets go on stdin only. Item 2: several lines and non-ASCII; item 3: an empty secret.
    printf 's1-%s' "$rid" > secret1
    printf 'line one\nline two: p\303\244ss \342\234\223 %s' "$rid" > secret2
    : > secret3
    for i in 1 2 3; do
        secret-tool store --label="bv-ss-client $rid item $i" bv-ss-client "$rid" n "$i" < "secret$i"
    done
    for i in 1 2 3; do
        secret-tool lookup bv-ss-client "$rid" n "$i" > "got$i" || [ "$i" = 3 ] || _ss_fail "lookup of item $i failed"
        cmp "secret$i" "got$i" || _ss_fail "lookup of item $i returned another secret"
    done
    echo "store + lookup of 3 items: ok"

    # A store with the same attributes replaces the item (no duplicate), new secret and label.
    printf 's1-replaced-%s' "$rid" > secret1
    secret-tool store --label="bv-ss-client $rid item 1 replaced" bv-ss-client "$rid" n 1 < secret1
    secret-tool lookup bv-ss-client "$rid" n 1 > got1
    cmp secret1 got1 || _ss_fail "lookup after the replacing store returned the old secret"
    n=$(secret-tool search --all bv-ss-client "$rid" n 1 2>/dev/null | grep -c '^\[' || true)
    [ "$n" = 1 ] || _ss_fail "search for item 1 after the replacing store found $n items, not 1"
    echo "replacing store: ok"

    # search --all: all three, with labels and secrets; without --all: one.
    secret-tool search --all bv-ss-client "$rid" > search.out 2> search.err
    n=$(grep -c '^\[' search.out || true)
    [ "$n" = 3 ] || _ss_fail "search --all found $n items, not 3: $(cat search.out search.err)"
    grep -qF "label = bv-ss-client $rid item 1 replaced" search.out || _ss_fail "search --all: label of item 1 missing"
    grep -qF "label = bv-ss-client $rid item 2" search.out || _ss_fail "search --all: label of item 2 missing"
    grep -qF "secret = s1-replaced-$rid" search.out || _ss_fail "search --all: secret of item 1 missing"
    grep -qF "attribute.bv-ss-client = $rid" search.err || _ss_fail "search --all: attributes missing"
    n=$(secret-tool search bv-ss-client "$rid" 2>/dev/null | grep -c '^\[' || true)
    [ "$n" = 1 ] || _ss_fail "search without --all found $n items, not 1"
    echo "search --all (3 items) and search (1 item): ok"

    # The attribute-less edge: every item. secret-tool of libsecret <= 0.20 refuses to search without
    # attributes ("must specify attribute and value pairs"); then the same D-Bus call it would make,
    # Service.SearchItems({}), is checked with gdbus: it must return every item, ours among them.
    status=0
    secret-tool search --all > all.out 2> all.err || status=$?
    if [ "$status" = 0 ]; then
        for i in "1 replaced" 2 3; do
            grep -qF "label = bv-ss-client $rid item $i" all.out || _ss_fail "search --all without attributes misses item $i"
        done
        echo "search --all without attributes: ok ($(grep -c '^\[' all.out) items)"
    elif grep -q "must specify attribute" all.err; then
        echo "#> secret-tool $(dpkg-query -W -f='${Version}' libsecret-tools 2>/dev/null) refuses attribute-less search; checked Service.SearchItems({}) with gdbus instead"
        gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
            --method org.freedesktop.Secret.Service.SearchItems "{\"bv-ss-client\": \"$rid\"}" > ours.out
        gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
            --method org.freedesktop.Secret.Service.SearchItems "@a{ss} {}" > every.out
        grep -oE "'/[^']+'" ours.out | sort -u > ours.paths
        grep -oE "'/[^']+'" every.out | sort -u > every.paths
        [ "$(wc -l < ours.paths)" = 3 ] || _ss_fail "SearchItems({bv-ss-client: $rid}) returned $(cat ours.out)"
        comm -23 ours.paths every.paths > missing
        [ ! -s missing ] || _ss_fail "SearchItems({}) misses $(cat missing): $(cat every.out)"
        echo "SearchItems({}): ok ($(wc -l < every.paths) items, ours among them)"
    else
        _ss_fail "search --all without attributes: status $status: $(cat all.out all.err)"
    fi

    # Misses: lookup prints nothing and fails; search finds nothing; clear of nothing fails.
    status=0; secret-tool lookup bv-ss-client "$rid" n 4 > miss || status=$?
    [ "$status" != 0 ] && [ ! -s miss ] || _ss_fail "lookup of a missing item: status $status, output $(cat miss)"
    [ -z "$(secret-tool search --all bv-ss-client "$rid-none" 2>/dev/null)" ] || _ss_fail "search of a missing item found one"

    # clear: one item, then every item of the run.
    secret-tool clear bv-ss-client "$rid" n 2
    status=0; secret-tool lookup bv-ss-client "$rid" n 2 >/dev/null || status=$?
    [ "$status" != 0 ] || _ss_fail "item 2 is still there after clear"
    n=$(secret-tool search --all bv-ss-client "$rid" 2>/dev/null | grep -c '^\[' || true)
    [ "$n" = 2 ] || _ss_fail "after clearing item 2, search finds $n items, not 2"
    secret-tool clear bv-ss-client "$rid"
    [ -z "$(secret-tool search --all bv-ss-client "$rid" 2>/dev/null)" ] || _ss_fail "items left after clear"
    status=0; secret-tool clear bv-ss-client "$rid" || status=$?
    [ "$status" != 0 ] || echo "#> clear of nothing succeeded (secret-tool exits 1 on gnome-keyring)"
    echo "clear: ok"
}

# --- python keyring -----------------------------------------------------------------------------------

ss_client_python_keyring() { _ss_clients_run python-keyring _ss_body_python_keyring; }
_ss_body_python_keyring() {
    local work=$1
    [ -x "${BV_PYTHON_KEYRING:-}" ] || _ss_fail "BV_PYTHON_KEYRING is not set (scripts/setup/20-secret-service.sh)"
    # No keyringrc.cfg of the user's: the backend is the one keyring picks by itself.
    export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data
    unset PYTHON_KEYRING_BACKEND
    "$BV_PYTHON_KEYRING" - "$(_ss_run_id)" <<'PY'
import sys
import keyring
import keyring.backends.SecretService as secret_service
from keyring.errors import PasswordDeleteError

service = sys.argv[1]
backend = keyring.get_keyring()
print("backend:", backend, "keyring", keyring.__version__ if hasattr(keyring, "__version__") else "")
assert isinstance(backend, secret_service.Keyring), f"keyring picked {backend!r}, not the SecretService backend"
try:
    password = "p\u00e4ss \u2713\nsecond line"
    keyring.set_password(service, "alice", password)
    assert keyring.get_password(service, "alice") == password, "get after set"
    keyring.set_password(service, "alice", "replaced")
    assert keyring.get_password(service, "alice") == "replaced", "get after a second set"
    keyring.set_password(service, "bob", "bobs")
    assert keyring.get_password(service, "bob") == "bobs", "second user"
    assert keyring.get_password(service, "carol") is None, "missing user"
    assert keyring.get_password(service + "-none", "alice") is None, "missing service"
    credential = keyring.get_credential(service, "alice")
    assert credential is not None and credential.username == "alice" and credential.password == "replaced", "get_credential"
    anyone = keyring.get_credential(service, None)
    assert anyone is not None and anyone.username in ("alice", "bob"), "get_credential without a user"
    keyring.delete_password(service, "alice")
    assert keyring.get_password(service, "alice") is None, "get after delete"
    assert keyring.get_password(service, "bob") == "bobs", "delete removed another user"
    try:
        keyring.delete_password(service, "alice")
        raise AssertionError("a second delete did not raise PasswordDeleteError")
    except PasswordDeleteError:
        pass
    print("set/get/replace/get_credential/delete: ok")
finally:
    for user in ("alice", "bob"):
        try:
            keyring.delete_password(service, user)
        except PasswordDeleteError:
            pass
PY
}

# --- SecretStorage's own test suite -------------------------------------------------------------------

ss_client_secretstorage_suite() { _ss_clients_run secretstorage-suite _ss_body_secretstorage_suite; }
_ss_body_secretstorage_suite() {
    local status=0 summary
    [ -f "${BV_SECRETSTORAGE_TESTS:-}/run_tests.py" ] && [ -x "${BV_SECRETSTORAGE_PYTHON:-}" ] \
        || _ss_fail "BV_SECRETSTORAGE_TESTS/BV_SECRETSTORAGE_PYTHON are not set (scripts/setup/60-secret-service-clients.sh)"
    # run_tests.py with no argument talks to the real org.freedesktop.secrets (secretstorage.util.BUS_NAME);
    # given a mock service script (libsecret's mock-service-*.py) it would start that instead. The classes
    # skipped on the real bus (MockCollectionTest, LockingUnlockingTest) need the mock's own collections.
    trap '"$BV_SECRETSTORAGE_PYTHON" "$BV_SECRETSTORAGE_TESTS/cleanup_test_items.py" >/dev/null 2>&1 || true' EXIT
    (cd "$BV_SECRETSTORAGE_TESTS" && "$BV_SECRETSTORAGE_PYTHON" run_tests.py) > suite.out 2>&1 || status=$?
    cat suite.out
    summary=$(grep -E '^Ran [0-9]+ test' suite.out || echo "no summary")
    echo "#> $summary; $(tail -n 1 suite.out)"
    # Skips, grouped by reason: "test (module.Class.test) ... skipped 'reason'".
    sed -nE "s/^([a-z_0-9]+) \(([a-z_]+)\.([A-Za-z]+)[^)]*\) \.\.\. skipped '(.*)'$/\2.\3|\1|\4/p" suite.out \
        | awk -F'|' '{ key = $1 " (" $3 ")"; names[key] = names[key] (names[key] ? ", " : "") $2; n[key]++ }
                     END { for (k in names) printf "#> skipped %d in %s: %s\n", n[k], k, names[k] }' | sort
    # Items the suite left behind (a failed tearDown) are reported, then removed by the trap.
    "$BV_SECRETSTORAGE_PYTHON" "$BV_SECRETSTORAGE_TESTS/cleanup_test_items.py" > leftovers 2>&1 || true
    if [ -s leftovers ]; then echo "#> left behind by the suite (removed): $(wc -l < leftovers) items"; cat leftovers; fi
    # Last, for the failure's tail: the failing tests and the first line of each one's error.
    if [ "$status" != 0 ]; then
        echo "failing tests:"
        grep -E '^[a-z_0-9]+ \(.*\) \.\.\. (ERROR|FAIL)$' suite.out || true
        grep -E '^[A-Za-z.]*(Error|Exception): ' suite.out | sort | uniq -c | sort -rn | head -5 || true
    fi
    return "$status"
}

# --- git's t0303 with git-credential-libsecret --------------------------------------------------------

ss_client_git_libsecret_suite() { _ss_clients_run git-libsecret-suite _ss_body_git_libsecret_suite; }
_ss_body_git_libsecret_suite() {
    local work=$1 status=0
    [ -f "${BV_GIT_SUITE_DIR:-}/t/t0303-credential-external.sh" ] \
        || _ss_fail "BV_GIT_SUITE_DIR is not set (scripts/setup/50-git-credential-suite.sh)"
    [ -x "${BV_GIT_LIBSECRET_DIR:-}/git-credential-libsecret" ] \
        || _ss_fail "BV_GIT_LIBSECRET_DIR is not set (scripts/setup/60-secret-service-clients.sh)"
    # The installed git (GIT_TEST_INSTALLED) runs `git credential-libsecret`, found on PATH; test-lib.sh
    # keeps DBUS_SESSION_BUS_ADDRESS and gives HOME the trash directory.
    (cd "$BV_GIT_SUITE_DIR/t" && PATH="$BV_GIT_LIBSECRET_DIR:$PATH" GIT_TEST_INSTALLED=/usr/bin \
        GIT_TEST_CREDENTIAL_HELPER=libsecret sh t0303-credential-external.sh -v --root="$work/trash") \
        > suite.out 2>&1 || status=$?
    cat suite.out
    # Last, for the failure's tail: the failing tests.
    if [ "$status" != 0 ] || grep -q '^not ok' suite.out; then
        echo "failing tests:"; grep -E '^not ok|^# failed' suite.out || true
        _ss_fail "t0303 failed (status $status)"
    fi
    grep -qE '^# passed all [0-9]+ test' suite.out || _ss_fail "no '# passed all' line"
    echo "#> t0303: $(grep -E '^# passed all' suite.out | sed 's/^# //'); $(grep -E '^# skipping' suite.out | sed 's/^# //' | paste -sd';')"
}

# --- skopeo + docker-credential-secretservice ---------------------------------------------------------

ss_client_docker_secretservice() { _ss_clients_run docker-secretservice _ss_body_docker_secretservice; }
_ss_body_docker_secretservice() {
    local work=$1 helper user status
    # registry, server: not local, the EXIT trap reads them after the function returned.
    helper=${BV_DOCKER_SECRETSERVICE_HELPER:-/usr/bin/docker-credential-secretservice}
    [ -x "$helper" ] || _ss_fail "$helper is missing (scripts/setup/60-secret-service-clients.sh)"
    [ -n "${BV_DOCKER_REGISTRY:-}" ] && [ -r "${BV_DOCKER_REGISTRY_PASSWORD_FILE:-}" ] && command -v skopeo >/dev/null \
        || _ss_fail "BV_DOCKER_REGISTRY* unset or skopeo missing (scripts/setup/50-docker-registry.sh)"
    registry=$BV_DOCKER_REGISTRY user=$BV_DOCKER_REGISTRY_USER
    # The helper must be found as `docker-credential-secretservice` on PATH.
    mkdir -p bin; ln -sf "$helper" bin/docker-credential-secretservice
    export PATH="$work/bin:$PATH" HOME=$work REGISTRY_AUTH_FILE=$work/auth.json
    printf '{"credHelpers":{"%s":"secretservice"}}\n' "$registry" > auth.json
    server="https://$(_ss_run_id).example"
    trap 'printf %s "$server" | docker-credential-secretservice erase >/dev/null 2>&1;
          printf %s "$registry" | docker-credential-secretservice erase >/dev/null 2>&1; true' EXIT
    # A login left by an earlier run would make the checks below lie.
    printf %s "$registry" | docker-credential-secretservice erase >/dev/null 2>&1 || true

    # The helper's own protocol (what docker and containers/image send it).
    printf '{"ServerURL":"%s","Username":"u1","Secret":"s1"}' "$server" | docker-credential-secretservice store
    printf %s "$server" | docker-credential-secretservice get > got.json
    python3 -c 'import json, sys; d = json.load(open("got.json")); assert (d["Username"], d["Secret"]) == ("u1", "s1"), d'
    # A new login of the same user replaces the secret. (Not checked: another user for the same server.
    # The helper's attributes are server + username, so it adds a second item and `get` answers one of the
    # two, as the provider orders them; `erase` removes one.)
    printf '{"ServerURL":"%s","Username":"u1","Secret":"s2"}' "$server" | docker-credential-secretservice store
    printf %s "$server" | docker-credential-secretservice get > got.json
    python3 -c 'import json; d = json.load(open("got.json")); assert (d["Username"], d["Secret"]) == ("u1", "s2"), d'
    docker-credential-secretservice list > list.json
    python3 - "$server" <<'PY'
import json, sys
listed = json.load(open("list.json"))
assert listed.get(sys.argv[1]) == "u1", listed
PY
    printf %s "$server" | docker-credential-secretservice erase
    status=0; printf %s "$server" | docker-credential-secretservice get > miss.out || status=$?
    [ "$status" = 1 ] && grep -q "credentials not found in native keychain" miss.out \
        || _ss_fail "get after erase: status $status, $(cat miss.out)"
    echo "helper store/get/replace/list/erase: ok"

    # skopeo through credHelpers: a wrong password stores nothing; login stores; get-login reads; logout erases.
    status=0
    echo "not-the-password" | skopeo login --tls-verify=false -u "$user" --password-stdin "$registry" > wrong.out 2>&1 || status=$?
    [ "$status" != 0 ] || _ss_fail "a wrong password was accepted: $(cat wrong.out)"
    docker-credential-secretservice list > list.json
    python3 - "$registry" <<'PY'
import json, sys
assert sys.argv[1] not in json.load(open("list.json")), "a failed login stored credentials"
PY
    skopeo login --tls-verify=false -u "$user" --password-stdin "$registry" < "$BV_DOCKER_REGISTRY_PASSWORD_FILE" > login.out 2>&1 \
        || _ss_fail "skopeo login: $(cat login.out)"
    grep -q "Login Succeeded" login.out || _ss_fail "skopeo login: $(cat login.out)"
    ! grep -qF "$(cat "$BV_DOCKER_REGISTRY_PASSWORD_FILE")" auth.json || _ss_fail "the password went into auth.json"
    docker-credential-secretservice list > list.json
    python3 - "$registry" "$user" <<'PY'
import json, sys
listed = json.load(open("list.json"))
assert listed.get(sys.argv[1]) == sys.argv[2], f"list after login: {listed}"
PY
    [ "$(skopeo login --get-login "$registry")" = "$user" ] || _ss_fail "skopeo login --get-login"
    # The stored login authenticates: a missing repository gets past auth (404, not 401).
    skopeo list-tags --tls-verify=false "docker://$registry/bv/none" > tags.out 2>&1 || true
    ! grep -qiE "unauthorized|401" tags.out || _ss_fail "list-tags was not authenticated: $(cat tags.out)"
    skopeo logout "$registry" > logout.out 2>&1 || _ss_fail "skopeo logout: $(cat logout.out)"
    status=0; skopeo login --get-login "$registry" > after.out 2>&1 || status=$?
    [ "$status" != 0 ] && grep -q "not logged into" after.out || _ss_fail "get-login after logout: $(cat after.out)"
    docker-credential-secretservice list > list.json
    python3 - "$registry" <<'PY'
import json, sys
assert sys.argv[1] not in json.load(open("list.json")), "logout left the credentials"
PY
    # (No second logout: Debian's skopeo 1.9.3 overflows its stack when a helper reports a miss to logout.)
    echo "skopeo login/--get-login/list-tags/logout + helper list: ok"
}

# --- all ------------------------------------------------------------------------------------------------

ss_clients_run_all() {
    local failed=() f
    for f in ss_client_secret_tool ss_client_python_keyring ss_client_secretstorage_suite \
        ss_client_git_libsecret_suite ss_client_docker_secretservice; do
        "$f" || failed+=("$f")
    done
    if [ "${#failed[@]}" -gt 0 ]; then echo "secret service clients failed: ${failed[*]}"; return 1; fi
    echo "secret service clients: all passed"
}
