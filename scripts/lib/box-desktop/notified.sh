#!/bin/sh
# Run by dunst for each notification it shows: one entry of its id, app, summary and body (dunst's
# DUNST_* variables), each entry ended by a line "---".
{
    printf 'id=%s\napp=%s\nsummary=%s\n' "$DUNST_ID" "$DUNST_APP_NAME" "$DUNST_SUMMARY"
    printf '%s\n' "$DUNST_BODY" | sed 's/^/body=/'
    echo ---
} >> "$(dirname "$0")/out/shown.log"
