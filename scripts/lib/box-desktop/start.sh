#!/bin/sh
# As the test user, in a logind session that outlives this call: a display (Xvfb :7), the desktop's
# notification server on the session bus (dunst, configured by dunstrc here), and the package's
# prompter as its user unit, registered with the vault service when this returns.
set -e
here=$(dirname "$0")
# Debian's own dunst.service would be activated by an early Notify, with no display.
systemctl --user mask --runtime dunst.service >/dev/null 2>&1 || true
# -fbdir: the screen is also the file out/Xvfb_screen0 (XWD), which the tests read as a screenshot; -br:
# a black background, so whatever is drawn is what is not black.
systemd-run --user --unit=box-xvfb --collect -q Xvfb :7 -screen 0 1024x768x24 -nolisten tcp -br -fbdir "$here/out"
for _ in $(seq 100); do [ -S /tmp/.X11-unix/X7 ] && break; sleep 0.1; done
systemd-run --user --unit=box-dunst --collect -q -E DISPLAY=:7 /usr/bin/dunst -config "$here/dunstrc"
for _ in $(seq 100); do busctl --user status org.freedesktop.Notifications >/dev/null 2>&1 && break; sleep 0.1; done
busctl --user status org.freedesktop.Notifications >/dev/null
"$here/prompter-start.sh"
