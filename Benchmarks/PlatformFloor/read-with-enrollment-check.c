// A cold retrieveVault of a plain item where fprintd runs, done the libsecret way (a measurement, not a
// test; Benchmarks/run-all.sh builds and times it). A C program that does only what that call must do,
// with libsecret's own Secret Service session (whose key exchange costs more than the library's own, see
// Sources/BiometricsVaultSecretService/SessionEncryption.swift), and nothing of ours:
//
//   - on the main thread, what `secret-tool lookup` does: libsecret's lookup of one item by
//     service/username (session bus, Secret Service session with its key exchange, SearchItems,
//     GetSecrets), and print the secret;
//   - on a second thread, started first, what `retrieveVault` needs to tell `.keychainUpgradable` from
//     `.keychain`: fprintd's GetDefaultDevice and ListEnrolledFingers on the system bus (fprintd asks
//     polkit before it answers the latter).
//
// Usage: read-with-enrollment-check KEY   (the item of `secret-tool lookup service biometrics-vault
// username KEY`). Exits 0 when it read the item; the enrollment answer itself is not needed here, any
// reply from fprintd (fingers, or "no enrolled prints") ends the check.
#include <gio/gio.h>
#include <libsecret/secret.h>
#include <pthread.h>
#include <stdio.h>

static void *check_enrollment(void *unused) {
    (void)unused;
    GError *error = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, &error);
    if (bus == NULL) {
        g_clear_error(&error);
        return NULL;
    }
    GVariant *device = g_dbus_connection_call_sync(
        bus, "net.reactivated.Fprint", "/net/reactivated/Fprint/Manager", "net.reactivated.Fprint.Manager",
        "GetDefaultDevice", NULL, G_VARIANT_TYPE("(o)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
    if (device != NULL) {
        const char *path = NULL;
        g_variant_get(device, "(&o)", &path);
        GVariant *fingers = g_dbus_connection_call_sync(
            bus, "net.reactivated.Fprint", path, "net.reactivated.Fprint.Device", "ListEnrolledFingers",
            g_variant_new("(s)", ""), NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
        if (fingers != NULL) g_variant_unref(fingers);
        g_variant_unref(device);
    }
    g_clear_error(&error);
    g_object_unref(bus);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s KEY\n", argv[0]);
        return 2;
    }
    // GLib 2.74 can deadlock when two threads set up GIO's classes for the first time together (it did
    // here, about once in 250 runs): set up the two that meet on this thread first, as the library does
    // (Sources/BiometricsVaultDBus/GTypeStartup.swift).
    g_type_class_unref(g_type_class_ref(G_TYPE_DBUS_CONNECTION));
    g_type_class_unref(g_type_class_ref(G_TYPE_DBUS_PROXY));

    pthread_t enrollment;
    if (pthread_create(&enrollment, NULL, check_enrollment, NULL) != 0) return 2;

    // As secret-tool: no schema name to match, only the two attributes.
    static const SecretSchema schema = {
        "org.freedesktop.Secret.Generic", SECRET_SCHEMA_DONT_MATCH_NAME,
        {{"service", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"username", SECRET_SCHEMA_ATTRIBUTE_STRING}, {NULL, 0}},
    };
    GError *error = NULL;
    gchar *secret = secret_password_lookup_sync(&schema, NULL, &error, "service", "biometrics-vault",
                                                "username", argv[1], NULL);
    pthread_join(enrollment, NULL);
    if (secret == NULL) {
        fprintf(stderr, "%s\n", error != NULL ? error->message : "no such item");
        g_clear_error(&error);
        return 1;
    }
    puts(secret);
    secret_password_free(secret);
    return 0;
}
