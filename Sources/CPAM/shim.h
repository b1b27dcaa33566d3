// Linux-PAM for BiometricsVaultLinuxAuth. Only PAMTransaction.swift calls it.
#include <dlfcn.h>
#include <stddef.h>
#include <security/pam_appl.h>

// The libpam entry points PAMTransaction.swift calls, resolved with dlopen/dlsym (the header above only
// gives their types). Linking libpam loaded it and its two dependencies at every start, about 0.2 ms of
// every CLI run, for the few that authenticate the owner (Docs/Benchmarks.md).
typedef struct bv_pam_api {
    __typeof__(pam_start) *_Nonnull pam_start;
    __typeof__(pam_authenticate) *_Nonnull pam_authenticate;
    __typeof__(pam_acct_mgmt) *_Nonnull pam_acct_mgmt;
    __typeof__(pam_end) *_Nonnull pam_end;
    __typeof__(pam_strerror) *_Nonnull pam_strerror;
} bv_pam_api;

// Opens libpam (Debian's soname) and fills `api`. Returns NULL, or what is missing (the soname or a
// symbol's name; `api` is then unusable). Called once per process; the library stays open.
static inline const char *_Nullable bv_pam_load(bv_pam_api *_Nonnull api) {
    void *library = dlopen("libpam.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return "libpam.so.0";
#define BV_PAM_RESOLVE(name) \
    if ((*(void **)&api->name = dlsym(library, #name)) == NULL) return #name;
    BV_PAM_RESOLVE(pam_start)
    BV_PAM_RESOLVE(pam_authenticate)
    BV_PAM_RESOLVE(pam_acct_mgmt)
    BV_PAM_RESOLVE(pam_end)
    BV_PAM_RESOLVE(pam_strerror)
#undef BV_PAM_RESOLVE
    return NULL;
}
