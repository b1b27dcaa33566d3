#!/bin/sh
# dunst's context menu (its `dmenu`): one line per action, "#Label (Summary) [ID,KEY]" on stdin. Picks
# the line holding the text in $XDG_RUNTIME_DIR/dunst-pick (a test writes "[ID,cancel]"), as a person
# picks it; nothing when no line does.
want=$(cat "$XDG_RUNTIME_DIR/dunst-pick" 2>/dev/null) || exit 0
grep -F -m1 -- "$want"
