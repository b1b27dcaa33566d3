#!/usr/bin/env bash
# systemd-box: this machine as a desktop runs it, inside this machine (the workplace's shared tool
# shared/tools/systemd-box, kept here so that CI's clone has it). systemd is PID 1 of its own pid, mount and
# cgroup namespaces, so the real systemd-logind, the system bus started by systemd, D-Bus
# activation through systemd units, and per-user managers all run (`runuser -l USER` inside opens a logind
# session with the user's `systemd --user` and session bus at /run/user/UID/bus).
#
#   systemd-box start         boot it (does nothing if it runs); prints the host pid of its PID 1
#   systemd-box run CMD...    run CMD inside as root, e.g. systemd-box run runuser -l vaulttest -c 'loginctl'
#   systemd-box stop          power it off and wait until it is gone
#   systemd-box status        its pid and `systemctl is-system-running`, or "not running"
#
# Its own: /run, /tmp and /var/tmp (empty tmpfs; the host's /tmp is at /run/host-tmp inside), its cgroup
# tree (a cgroup2 subtree of the host's), its processes. Shared with the host: /usr, /etc, /var, /home and
# the kernel: a package installed on the host is installed in the box too (`systemctl daemon-reload`
# inside picks up new units). The host's own daemons (a system bus in the host's /run) are not seen inside.
# Boot units that would touch what is shared (kernel settings, devices, the clock, consoles, timers,
# package upgrades, servers listening on the host's network, suspending the machine) are masked; extra units to mask can be given
# in SYSTEMD_BOX_MASK. Root only. One box at a time.
set -euo pipefail
state=/run/systemd-box
pidfile=$state/pid

masked="systemd-sysctl.service systemd-udevd.service systemd-udevd-control.socket systemd-udevd-kernel.socket
 systemd-udev-trigger.service systemd-udev-settle.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount
 systemd-timesyncd.service systemd-pstore.service timers.target getty.target console-getty.service
 getty@tty1.service serial-getty@ttyS0.service systemd-hwdb-update.service systemd-modules-load.service
 systemd-repart.service systemd-firstboot.service systemd-pcrphase.service systemd-pcrphase-sysinit.service
 systemd-random-seed.service remote-fs.target apt-daily.service apt-daily-upgrade.service man-db.service
 fstrim.service e2scrub_reap.service systemd-networkd.service systemd-resolved.service sys-kernel-debug.mount
 sys-kernel-tracing.mount sys-kernel-config.mount sys-fs-fuse-connections.mount dev-hugepages.mount
 systemd-journal-flush.service docker-registry.service postgresql.service sleep.target suspend.target
 hibernate.target hybrid-sleep.target suspend-then-hibernate.target systemd-suspend.service systemd-hibernate.service
 systemd-hybrid-sleep.service systemd-suspend-then-hibernate.service ${SYSTEMD_BOX_MASK:-}"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }
inside() { nsenter -t "$(cat "$pidfile")" -m -p -- "$@"; }

cgroup2_root() { findmnt -n -t cgroup2 -o TARGET | head -1; }

start() {
    if running; then cat "$pidfile"; return 0; fi
    [ "$(id -u)" = 0 ] || { echo "systemd-box: run as root" >&2; exit 1; }
    local root cg
    root=$(cgroup2_root); [ -n "$root" ] || { echo "systemd-box: no cgroup2 hierarchy mounted" >&2; exit 1; }
    cg=$root/systemd-box
    mkdir -p "$state" "$cg"
    # The inner script: its own /run, /tmp, /var/tmp and cgroup2 view, the masks, then systemd.
    local inner='
        set -e
        mount -t tmpfs -o mode=755 tmpfs /run
        mkdir -p /run/host-tmp /run/systemd/system /run/lock
        mount --bind /tmp /run/host-tmp
        mount -t tmpfs -o mode=1777 tmpfs /tmp
        mount -t tmpfs -o mode=1777 tmpfs /var/tmp
        umount -l /sys/fs/cgroup 2>/dev/null || true
        mount -t cgroup2 cgroup2 /sys/fs/cgroup
        for u in $MASKED; do ln -sf /dev/null /run/systemd/system/$u; done
        ln -sf /usr/lib/systemd/system/multi-user.target /run/systemd/system/default.target
        exec env -i container=systemd-box PATH=/usr/sbin:/usr/bin:/sbin:/bin \
            /lib/systemd/systemd --system --log-target=journal --show-status=no'
    ( echo "$BASHPID" > "$cg/cgroup.procs"
      exec env MASKED="$masked" unshare --cgroup --pid --fork --mount --propagation private --mount-proc \
          bash -c "$inner" ) </dev/null >"$state/console.log" 2>&1 &
    local outer=$! pid=""
    for _ in $(seq 100); do pid=$(pgrep -P "$outer" || true); [ -n "$pid" ] && break; sleep 0.1; done
    [ -n "$pid" ] || { echo "systemd-box: PID 1 did not start ($(cat "$state/console.log"))" >&2; exit 1; }
    echo "$pid" > "$pidfile"
    local s=""
    for _ in $(seq 120); do
        s=$(inside systemctl is-system-running 2>/dev/null || true)
        case "$s" in running|degraded) break ;; esac; sleep 0.5
    done
    case "$s" in running|degraded) ;; *) echo "systemd-box: not up after 60 s (state: ${s:-none})" >&2; exit 1 ;; esac
    [ "$s" = running ] || inside systemctl --failed --no-pager >&2 || true
    echo "$pid"
}

stop() {
    running || { rm -f "$pidfile"; return 0; }
    local pid; pid=$(cat "$pidfile")
    inside systemctl poweroff >/dev/null 2>&1 || kill -s SIGRTMIN+4 "$pid" 2>/dev/null || true
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; sleep 0.5; }
    rm -f "$pidfile"
    local root; root=$(cgroup2_root)
    [ -n "$root" ] && [ -d "$root/systemd-box" ] && find "$root/systemd-box" -depth -mindepth 1 -type d -exec rmdir {} \; 2>/dev/null || true
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    run) shift; running || { echo "systemd-box: not running (systemd-box start)" >&2; exit 1; }; inside "$@" ;;
    status) if running; then echo "pid $(cat "$pidfile"): $(inside systemctl is-system-running 2>&1 || true)"; else echo "not running"; fi ;;
    *) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
