// tpm2-tss (ESAPI, TCTI loader, marshalling, return-code text) for BiometricsVaultTPM.
// The static inline helpers only fill in structures (templates, session parameters), which Swift cannot
// spell conveniently through the imported unions; every TPM command is sent from TSS2.swift.
#include <string.h>
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
