// tpm2-tss (ESAPI, TCTI loader, marshalling, return-code text) for BiometricsVaultTPM.
// The static inline helpers only fill in structures (templates, session parameters), which Swift cannot
// spell conveniently through the imported unions, resolve the library at run time, and join the thread
// of a TPM call with a deadline; every TPM command is sent from TSS2.swift.
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>

// The TCG storage root key template (ECC NIST P-256, AES-128-CFB, SHA-256, empty unique): the same
// template under the same owner seed always yields the same key, so nothing is kept in the TPM.
static inline TPM2B_PUBLIC bv_storage_primary_template(void) {
    TPM2B_PUBLIC template;
    memset(&template, 0, sizeof template);
    template.publicArea.type = TPM2_ALG_ECC;
    template.publicArea.nameAlg = TPM2_ALG_SHA256;
    template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT
        | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA
        | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
    template.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES;
    template.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128;
    template.publicArea.parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB;
    template.publicArea.parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
    template.publicArea.parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
    template.publicArea.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
    return template;
}

// A sealed data object. With a PIN it is subject to dictionary-attack protection (noDA clear); without
// one its authValue is empty and noDA is set, so a lockout caused by something else does not block it.
static inline TPM2B_PUBLIC bv_sealed_object_template(int dictionaryAttackProtected) {
    TPM2B_PUBLIC template;
    memset(&template, 0, sizeof template);
    template.publicArea.type = TPM2_ALG_KEYEDHASH;
    template.publicArea.nameAlg = TPM2_ALG_SHA256;
    template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT
        | TPMA_OBJECT_USERWITHAUTH | (dictionaryAttackProtected ? 0 : TPMA_OBJECT_NODA);
    template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL;
    return template;
}

// AES-128-CFB parameter encryption for a session.
static inline TPMT_SYM_DEF bv_session_symmetric(void) {
    TPMT_SYM_DEF symmetric;
    memset(&symmetric, 0, sizeof symmetric);
    symmetric.algorithm = TPM2_ALG_AES;
    symmetric.keyBits.aes = 128;
    symmetric.mode.aes = TPM2_ALG_CFB;
    return symmetric;
}

// The variable dictionary-attack properties: counter, max tries, interval, recovery.
static inline UINT32 bv_property_count(const TPMS_CAPABILITY_DATA *data) {
    UINT32 count = data->data.tpmProperties.count;
    return count < TPM2_MAX_TPM_PROPERTIES ? count : TPM2_MAX_TPM_PROPERTIES;
}
static inline TPMS_TAGGED_PROPERTY bv_property(const TPMS_CAPABILITY_DATA *data, UINT32 index) {
    return data->data.tpmProperties.tpmProperty[index];
}

// The handles of a TPM2_CAP_HANDLES answer (leftover transient objects and sessions).
static inline UINT32 bv_handle_count(const TPMS_CAPABILITY_DATA *data) {
    UINT32 count = data->data.handles.count;
    return count < TPM2_MAX_CAP_HANDLES ? count : TPM2_MAX_CAP_HANDLES;
}
static inline UINT32 bv_max_cap_handles(void) { return (UINT32)TPM2_MAX_CAP_HANDLES; }
static inline TPM2_HANDLE bv_handle(const TPMS_CAPABILITY_DATA *data, UINT32 index) {
    return data->data.handles.handle[index];
}

// The tpm2-tss entry points TSS2.swift calls, resolved with dlopen/dlsym (the headers above only give
// their types). Loading them at start-up cost every CLI run about 1.7 ms (Docs/Benchmarks.md).
typedef struct bv_tss2_api {
    __typeof__(Esys_Initialize) *_Nonnull Esys_Initialize;
    __typeof__(Esys_Finalize) *_Nonnull Esys_Finalize;
    __typeof__(Esys_Free) *_Nonnull Esys_Free;
    __typeof__(Esys_CreatePrimary) *_Nonnull Esys_CreatePrimary;
    __typeof__(Esys_Create) *_Nonnull Esys_Create;
    __typeof__(Esys_Load) *_Nonnull Esys_Load;
    __typeof__(Esys_Unseal) *_Nonnull Esys_Unseal;
    __typeof__(Esys_StartAuthSession) *_Nonnull Esys_StartAuthSession;
    __typeof__(Esys_TRSess_SetAttributes) *_Nonnull Esys_TRSess_SetAttributes;
    __typeof__(Esys_TR_SetAuth) *_Nonnull Esys_TR_SetAuth;
    __typeof__(Esys_FlushContext) *_Nonnull Esys_FlushContext;
    __typeof__(Esys_GetCapability) *_Nonnull Esys_GetCapability;
    __typeof__(Esys_TR_FromTPMPublic) *_Nonnull Esys_TR_FromTPMPublic;
    __typeof__(Tss2_TctiLdr_Initialize) *_Nonnull Tss2_TctiLdr_Initialize;
    __typeof__(Tss2_TctiLdr_Finalize) *_Nonnull Tss2_TctiLdr_Finalize;
    __typeof__(Tss2_MU_TPM2B_PUBLIC_Marshal) *_Nonnull Tss2_MU_TPM2B_PUBLIC_Marshal;
    __typeof__(Tss2_MU_TPM2B_PRIVATE_Marshal) *_Nonnull Tss2_MU_TPM2B_PRIVATE_Marshal;
    __typeof__(Tss2_MU_TPM2B_PUBLIC_Unmarshal) *_Nonnull Tss2_MU_TPM2B_PUBLIC_Unmarshal;
    __typeof__(Tss2_MU_TPM2B_PRIVATE_Unmarshal) *_Nonnull Tss2_MU_TPM2B_PRIVATE_Unmarshal;
    __typeof__(Tss2_RC_Decode) *_Nonnull Tss2_RC_Decode;
} bv_tss2_api;

// Opens the four libraries (Debian's sonames) and fills `api`. Returns NULL, or what is missing (a
// library's soname or a symbol's name; `api` is then unusable). Called once per process.
static inline const char *_Nullable bv_tss2_load(bv_tss2_api *_Nonnull api) {
    static const char *const names[] = {
        "libtss2-esys.so.0", "libtss2-tctildr.so.0", "libtss2-mu.so.0", "libtss2-rc.so.0",
    };
    void *libraries[4];
    for (int index = 0; index < 4; index++) {
        libraries[index] = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
        if (libraries[index] == NULL) return names[index];
    }
#define BV_TSS2_RESOLVE(library, name) \
    if ((*(void **)&api->name = dlsym(libraries[library], #name)) == NULL) return #name;
    BV_TSS2_RESOLVE(0, Esys_Initialize)
    BV_TSS2_RESOLVE(0, Esys_Finalize)
    BV_TSS2_RESOLVE(0, Esys_Free)
    BV_TSS2_RESOLVE(0, Esys_CreatePrimary)
    BV_TSS2_RESOLVE(0, Esys_Create)
    BV_TSS2_RESOLVE(0, Esys_Load)
    BV_TSS2_RESOLVE(0, Esys_Unseal)
    BV_TSS2_RESOLVE(0, Esys_StartAuthSession)
    BV_TSS2_RESOLVE(0, Esys_TRSess_SetAttributes)
    BV_TSS2_RESOLVE(0, Esys_TR_SetAuth)
    BV_TSS2_RESOLVE(0, Esys_FlushContext)
    BV_TSS2_RESOLVE(0, Esys_GetCapability)
    BV_TSS2_RESOLVE(0, Esys_TR_FromTPMPublic)
    BV_TSS2_RESOLVE(1, Tss2_TctiLdr_Initialize)
    BV_TSS2_RESOLVE(1, Tss2_TctiLdr_Finalize)
    BV_TSS2_RESOLVE(2, Tss2_MU_TPM2B_PUBLIC_Marshal)
    BV_TSS2_RESOLVE(2, Tss2_MU_TPM2B_PRIVATE_Marshal)
    BV_TSS2_RESOLVE(2, Tss2_MU_TPM2B_PUBLIC_Unmarshal)
    BV_TSS2_RESOLVE(2, Tss2_MU_TPM2B_PRIVATE_Unmarshal)
    BV_TSS2_RESOLVE(3, Tss2_RC_Decode)
#undef BV_TSS2_RESOLVE
    return NULL;  // the libraries stay open for the life of the process
}

// glibc (2.31 and later) declares this only under _GNU_SOURCE, which the Glibc module Swift imports is
// built without.
extern int pthread_clockjoin_np(
    pthread_t thread, void *_Nullable *_Nullable result, clockid_t clock, const struct timespec *_Nonnull deadline);

// Joins `thread` if it ends within `seconds` (CLOCK_MONOTONIC, so a change of the wall clock does not
// stretch the wait): 0 when joined; otherwise an error number (ETIMEDOUT), and the thread is still
// joinable. TPMBackend+Linux.swift waits so for the thread of a TPM call that has answered.
static inline int bv_join_thread_within(pthread_t thread, int seconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += seconds;
    return pthread_clockjoin_np(thread, NULL, CLOCK_MONOTONIC, &deadline);
}
