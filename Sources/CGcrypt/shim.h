#ifndef CGCRYPT_SHIM_H
#define CGCRYPT_SHIM_H
// Only libgcrypt's multi-precision integers are used (the Secret Service session's Diffie-Hellman, in
// Sources/BiometricsVaultSecretService/SessionKeyExchange.swift), as libsecret itself uses them.
#include <gcrypt.h>
#endif
