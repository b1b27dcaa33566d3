# Sourced by the setup scripts of Secret Service providers that must not be D-Bus-activated in place of
# each other, and run by the tests' private buses (Tests/BiometricsVaultTestSupport/PrivateBus.swift):
# starts a session dbus-daemon with an allow-all policy (private to the tests; eavesdropping allowed for
# dbus-monitor) and no service directory but "$2" when given, listening in "$1/run" (which must exist).
# Exports DBUS_SESSION_BUS_ADDRESS and writes the daemon's pid to "$1/dbus.pid" (scripts/stop-daemons.sh).
start_private_session_bus() {
    local sandbox=$1 services=${2:+<servicedir>$2</servicedir>} pid
    cat > "$sandbox/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$sandbox/run</listen>
  <auth>EXTERNAL</auth>
  $services
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
    read -r DBUS_SESSION_BUS_ADDRESS pid < <(dbus-daemon --config-file="$sandbox/bus.conf" --fork --nopidfile \
        --print-address=1 --print-pid=1 2>/dev/null | paste -sd' ')
    export DBUS_SESSION_BUS_ADDRESS
    echo "$pid" > "$sandbox/dbus.pid"
}
