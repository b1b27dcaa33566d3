#ifndef CLIBSECRET_SHIM_H
#define CLIBSECRET_SHIM_H
// The D-Bus-path calls (secret-paths.h: search_for_dbus_paths, get_secret_for_dbus_path,
// create_item_dbus_path, delete_item_dbus_path) are only declared with this macro. They have been
// unchanged since libsecret 0.x and let the store search without unlocking (no prompt) and create an
// item without the default-collection auto-creation (a prompt) that secret_password_store may attempt.
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>
#endif
