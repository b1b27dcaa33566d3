#!/usr/bin/env python3
"""Writes the small committed seed corpus under Fuzz/corpus/<target>/ (run from the repository root).

Seeds are well-formed inputs of each format, built from the format descriptions in the sources
(VaultEnvelope.swift, ItemHeader.swift, ItemFile.swift, StoreKeys.swift) and from the inputs of the tests
of each decoder (named at each target below), plus a few near misses, so libFuzzer starts past the magic
numbers and checksums. Re-running it rewrites the same files.
"""
import hashlib
import json
import os
import struct
import zlib

ROOT = "Fuzz/corpus"


def write(target, name, data):
    os.makedirs(f"{ROOT}/{target}", exist_ok=True)
    with open(f"{ROOT}/{target}/{name}", "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def envelope_body(protection, enrollment, payload):
    e = enrollment.encode()
    return b"BVE" + bytes([1, protection, len(e)]) + e + struct.pack(">I", len(payload)) + payload


def envelope(protection, enrollment, payload):
    body = envelope_body(protection, enrollment, payload)
    return body + struct.pack(">I", zlib.crc32(body))


credentials = json.dumps({"username": "alice", "token": "t0k3n"}).encode()
cases = {
    "none": (0, "", credentials),
    "current-set": (1, "3fa2b7c9d1e0f456", credentials),
    "any": (2, "", b'"just a string"'),
    "presence": (3, "", b"{}"),
    "passcode": (4, "", b"[1,2.5,null,true]"),
    "empty-payload": (0, "", b""),
}

# FuzzEnvelope: mode byte 0 = envelope as is, 1 = body whose CRC the harness appends.
for name, (p, e, c) in cases.items():
    write("FuzzEnvelope", f"{name}", b"\x00" + envelope(p, e, c))
    write("FuzzEnvelope", f"{name}-body", b"\x01" + envelope_body(p, e, c))
write("FuzzEnvelope", "bad-crc", b"\x00" + envelope(0, "", credentials)[:-1] + b"\x00")
write("FuzzEnvelope", "future-version", b"\x01" + b"BVE\x02\x00\x00" + struct.pack(">I", 2) + b"{}")

# FuzzItemHeader: attribute text.
for name, text in {
    "none": "bv1;none",
    "current-set": "bv1;biometryCurrentSet;3fa2b7c9d1e0f456",
    "any": "bv1;biometryAny",
    "presence": "bv1;userPresence",
    "passcode": "bv1;devicePasscode",
    "future": "bv2;none",
    "extra-field": "bv1;none;a;b",
}.items():
    write("FuzzItemHeader", name, text)

# FuzzFileStoreFormat: mode byte 0 = item file, 1 = protection + item plaintext, 2 = key file.
for name, (p, e, c) in cases.items():
    key = b"example-key"
    write("FuzzFileStoreFormat", f"plaintext-{name}", b"\x01" + bytes([p]) + struct.pack(">H", len(key)) + key + envelope(p, e, c))
write("FuzzFileStoreFormat", "plaintext-mismatched-protection",
      b"\x01\x01" + struct.pack(">H", 1) + b"k" + envelope(0, "", credentials))
write("FuzzFileStoreFormat", "item-file", b"\x00" + b"BVFI\x01\x00" + bytes(12) + bytes(40) + bytes(16))
write("FuzzFileStoreFormat", "item-file-short", b"\x00" + b"BVFI\x01\x03" + bytes(20))
key_file = b"BVFK\x01\x00" + bytes(range(32))
write("FuzzFileStoreFormat", "key-file", b"\x02" + key_file + struct.pack(">I", zlib.crc32(key_file)))
write("FuzzFileStoreFormat", "key-file-scrypt", b"\x02" + b"BVFK\x01\x01" + bytes([10, 1, 1]) + bytes(16) + bytes(12) + bytes(32) + bytes(16))
write("FuzzFileStoreFormat", "key-file-unknown-kind", b"\x02" + b"BVFK\x01\x07")

# FuzzJSONValue: credentials JSON as the CLI reads it from stdin.
for name, text in {
    "object": '{"username":"alice","password":"s3cret","port":8443,"ratio":0.5,"tags":["a","b"],"extra":null}',
    "string": '"token"',
    "nested": '{"a":{"b":[1,{"c":true}]}}',
    "numbers": '[0,-1,9223372036854775807,-9223372036854775808,1e300,1.5,-0.0,1.0]',
    "unicode": '{"name":"J\\u00fcrgen \\ud83d\\ude00","emoji":"\u2603"}',
    "whitespace": ' \n\t{ "k" : [ ] } \n',
}.items():
    write("FuzzJSONValue", name, text)


# FuzzGitCredentialRequest (CredentialHelperRequestTests, CredentialHelperKeyTests): mode byte 0 = one
# request, 1 = three bytes of stream length then a unit repeated to it (read from a descriptor), 2 = two
# requests split at the first blank line.
def git_request(**attributes):
    return "".join(f"{name}={value}\n" for name, value in attributes.items())


git_requests = {
    "typical": git_request(protocol="https", host="github.com", username="alice", password="s3cret",
                           password_expiry_utc="1700000000", oauth_refresh_token="r3fresh") + "\n",
    "test-last-value": "protocol=https\r\nhost=a.example\nhost=b.example\nwwwauth[]=Basic\nnoise\nusername=\npath=\n\nhost=c\n",
    "port-and-path": git_request(protocol="https", host="git.example.com:8443", path="org/repo.git", username="carol"),
    "separators": git_request(protocol="https", host="x.example", path="a\\b", username="a%b@c"),
    "non-ascii": git_request(protocol="https", host="bücher.example", username="zoë"),
    "no-username": git_request(protocol="https", host="example.com"),
    "long-host": git_request(protocol="https", host="l" * 700, username="u"),
    "refused-cr": "password=a\rb\n",
}
for name, text in git_requests.items():
    write("FuzzGitCredentialRequest", name, b"\x00" + text.encode())
write("FuzzGitCredentialRequest", "refused-utf8", b"\x00" + b"host=\xff")
unit = git_request(protocol="https", host="h", username="u", password="p" * 200).encode()
write("FuzzGitCredentialRequest", "reader-short", b"\x01" + struct.pack(">I", len(unit))[1:] + unit)
# Few lines per 64 KiB: each line of a request costs the parser a few allocations.
unit = git_request(password="p" * 4000).encode()
write("FuzzGitCredentialRequest", "reader-near-limit", b"\x01" + bytes([0xC0, 0x20, 0x00]) + unit)
write("FuzzGitCredentialRequest", "two-spellings",
      b"\x02" + (git_request(protocol="https", host="\u00e9.example") + "\n" + git_request(protocol="https", host="e\u0301.example")).encode())

# FuzzDockerCredentialRequest (CredentialHelperRequestTests): mode byte 0 = stdin text, 1 = three bytes of
# stream length then a unit repeated to it.
for name, text in {
    "get": "https://index.docker.io/v1/\n",
    "get-padded": " \thttps://r.example/v1/\n",
    "get-blank": " \n",
    "get-port": "127.0.0.1:5000",
    "get-long": "https://" + "r" * 700 + ".example/",
    "store": '{"ServerURL":"https://r.example/v1/","Username":"alice","Secret":"s3cret"}',
    "store-other-member": '{"ServerURL":"r","Username":"u","Other":[1]}',
    "store-array": "[]",
    "store-no-url": '{"Username":"u"}',
    "store-empty-username": '{"ServerURL":"r","Username":""}',
    "store-number-secret": '{"ServerURL":"r","Username":"u","Secret":1}',
}.items():
    write("FuzzDockerCredentialRequest", name, b"\x00" + text.encode())
unit = b'{"ServerURL":"https://r.example/v1/","Username":"alice","Secret":"' + b"s" * 300 + b'"}'
write("FuzzDockerCredentialRequest", "reader-near-limit", b"\x01" + bytes([0xC0, 0x20, 0x00]) + unit)
write("FuzzDockerCredentialRequest", "reader-short", b"\x01" + struct.pack(">I", len(unit))[1:] + unit)

# FuzzAgentFrame (UnlockWindowHostileTests, UnlockWindowStoreKeyCLITests): mode byte 0 = a request frame,
# 1 = an answer frame, 2 = windows for fittingStatus. A frame's body names the wire version beside the
# message (AgentFrame.version).
def frame(message, version=1):
    body = json.dumps({"version": version, "message": message} if version is not None else message, separators=(",", ":")).encode()
    return struct.pack(">I", len(body)) + body


key_file = "0123456789abcdef" * 4
for name, message in {
    "open": {"open": {"service": "biometrics-vault", "policy": "devicePasscode", "seconds": 600}},
    "open-enrollment": {"open": {"service": "s", "policy": "biometryCurrentSet", "seconds": 60, "enrollment": "3fa2b7c9d1e0f456"}},
    "query": {"query": {"service": "biometrics-vault", "policy": "devicePasscode"}},
    "lock": {"lock": {}},
    "close": {"close": {"service": "s", "policy": "userPresence"}},
    "status": {"status": {}},
    "store-key": {"storeKey": {"store": "/home/u/.local/share/biometrics-vault", "keyFile": key_file}},
    "forget-store-key": {"forgetStoreKey": {"store": "/s"}},
    "malformed": {"open": {}},
}.items():
    write("FuzzAgentFrame", f"request-{name}", b"\x00" + frame(message))
write("FuzzAgentFrame", "request-keep-store-key",
      b"\x00" + frame({"keepStoreKey": {"store": "/s", "keyFile": key_file, "seconds": 600}}) + b"A" * 32)
write("FuzzAgentFrame", "request-too-long", b"\x00" + struct.pack(">I", 4097) + b"{}")
write("FuzzAgentFrame", "request-unversioned", b"\x00" + frame({"lock": {}}, version=None))
write("FuzzAgentFrame", "request-other-version", b"\x00" + frame({"lock": {}}, version=2))
report = {"service": "biometrics-vault", "policy": "devicePasscode", "remainingSeconds": 599}
for name, message in {
    "opened": {"opened": {"_0": report}},
    "window": {"window": {"_0": dict(report, enrollment="3fa2b7c9d1e0f456")}},
    "no-window": {"window": {}},
    "locked": {"locked": {"count": 2}},
    "status": {"status": {"scope": "tty 136:3 session 4242 (leader started at tick 123456)", "windows": [report]}},
    "status-no-terminal": {"status": {"windows": []}},
    "refused": {"refused": {"reason": "malformed request"}},
    "kept-store-key": {"keptStoreKey": {"seconds": 600}},
    "store-key": {"storeKey": {"found": True}},
}.items():
    write("FuzzAgentFrame", f"answer-{name}", b"\x01" + frame(message))


def field(data):
    data = data.encode() if isinstance(data, str) else data
    return bytes([len(data)]) + data


windows = b""
for index, (choice, service, enrollment) in enumerate([(6, "biometrics-vault", None), (0x81, "s" + "x" * 200, "3fa2b7c9d1e0f456"), (1, "\x1b/" * 60, None)]):
    windows += bytes([choice]) + field(service) + (field("userPresence") if choice & 1 else b"") + struct.pack(">I", 600)[1:]
    windows += field(enrollment) if enrollment else b""
write("FuzzAgentFrame", "fitting-status", b"\x02" + windows)

# FuzzSSHAgentMessage (BiometricsVaultSSHTests): mode byte 0 = a request frame, 1 = an answer frame,
# 2 = session-bind contents, 3 = a public key blob (a string), a signature blob (a string) and the data it
# signs, 4 = a stored key. The keys: Ed25519 is RFC 8032's first test vector (its seed is public); the ECDSA
# key, the RSA public key and the signatures were made once by BiometricsVaultSSH, none anyone's key; each
# signature verifies over the data it is written with below, except in "session-bind-rsa-host" and
# "signature-hostbound", near misses (a signature of other data).
def ssh_string(data):
    data = data.encode() if isinstance(data, str) else data
    return struct.pack(">I", len(data)) + data


def agent_frame(body):
    return struct.pack(">I", len(body)) + body


ed25519_seed = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
ed25519_public = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
ed25519_blob = ssh_string("ssh-ed25519") + ssh_string(ed25519_public)
ed25519_fields = ssh_string("ssh-ed25519") + ssh_string(ed25519_public) + ssh_string(ed25519_seed + ed25519_public)
p256_fields = bytes.fromhex(
    "0000001365636473612d736861322d6e69737470323536000000086e69737470323536000000410472f8a6b52f2978cf78e0"
    "adab549fedf1d2145592c5ee956511671f43547327af62f08d3e3b42b21dcec933d915a11a420454fec1e80f7c8ea693fc10"
    "3dc3dcda000000203940728bf7d5ae790bc145e4d9f6f5da7a6c5cedbbc4c704c5e521b9328c2ace"
)
rsa_blob = bytes.fromhex(
    "000000077373682d727361000000030100010000018100b7873984c2dec411e7d5e0ca4dbc88bb7b11ee9e931c54f5be31a4"
    "13373b457b357ecc8590b24388925c2527b449729219f638151b80c9d97c5943e6d0fa1171e7b3a0014db336159ecece0177"
    "9d874e73550532ee65847e83e784f80a262ff322ecc58141fc31165929aaf472a4832e2e8b1d9d97f971229553e2b0615dae"
    "e305f0ed5ffb21bc1dc23636aeaef14ce3e8f2570ee9f0be4a700289ba7a5e8a89e1e7a2c9e53a0d9d14efcff7cb0617ec70"
    "8ca48bad3787f84d2894fd31ead2e2aa870568c5291f30451eb124bb02d5643148dfcd17bae8efadfd9c0b99ca0d312cc5ee"
    "048fa106e6e5870f83afb1deb1c09130f43dcaef2830df6ad505c21f2d879be591f2dd9043ff1a6addd8226b5d1b52eb2ea4"
    "0f2085fc65487f727eac2bd44dd35bf323afc0751b5b8f6062c7876d8011882ffe67b534c07a4a8c06ee12145e3a7f1f626a"
    "8b0aa90fe334943ec55fb72096fa769a72c36e64f495062fd86a8aaa0bd1307dca1d02c7c30917e6d368b153cb645949b99d"
    "88b6c9aeb2f5f5"
)
ed25519_signature_of_session = bytes.fromhex(
    "0000000b7373682d656432353531390000004000c1db988bb12fd7351a6054ae3fac90fab7e4fc56b1651c7181f5f55f896f"
    "663933d3a90605d9058e9d0ac45950ee2d3c9c9b14857415587179fe0ccac35f09"
)
rsa_signature_of_userauth = bytes.fromhex(
    "0000000c7273612d736861322d323536000001809c2c8d534e23ddcbc9acc534ceac5c980dba89454c0d0f61c52c0a1b675b"
    "70ab8967c8f1c6fdf21712b51a111f86237c86c86ffa88a6a72e5fd3d7f11b4cd93063b49b144fd28df7e4b96ae674cdb6c0"
    "634413214e90b2fde3fdd926051253880c4f24aa551f34965966eb1f2229b00b1c70ee4290e9d8a4d2b78a2649b3c62a60c6"
    "45ed8ab97d5474733f14977f6d3de442d2842d7c5b2a3455c844b0342c7e588d1a154416484a7d603e3e3e2ea326377c6401"
    "eb0f7594644dabf4f9bbd481e3a98418aea259ab10ba02a64afb0e12597c23b482cc3a4380eefe40dab859447d7b80081cc3"
    "2a35ef47f8b055817dc0ae3d26ca2bde4bf759906bdb1296fbf676093df6095f1a01d0e4f1ad34ad296b9a790310bc8699c8"
    "1fc666227a279e17d8b9f30948c5b777f4b6802dd7b6a127b529729e03f8debddff045a7fbbe79a59790f92adfbfda0f5df7"
    "a399c74fec9fcfc3d4539d40b304429f22b30545f5be176e7af362786b588631e22e1a940a0fbca0e1bc245dedda0f0d5e2a"
    "06d360c1"
)
p256_signature_of_sshsig = bytes.fromhex(
    "0000001365636473612d736861322d6e697374703235360000004a0000002100f8092539e5e09ce307199c054d4705c436e4"
    "bb156f98c0c5cfbae20dbb63b9500000002100dafe71f28e41877b79ba160b802d43eb82600aa8ffb0725f44fc760375c8b0"
    "b9"
)
p256_blob = p256_fields[:4 + 19 + 4 + 8 + 4 + 65]  # its type, curve and point: the public key blob
session_id = bytes(range(32))
userauth = (ssh_string(session_id) + b"\x32" + ssh_string("alice") + ssh_string("ssh-connection") + ssh_string("publickey")
            + b"\x01" + ssh_string("rsa-sha2-256") + ssh_string(rsa_blob))
hostbound = (ssh_string(session_id) + b"\x32" + ssh_string("alice") + ssh_string("ssh-connection")
             + ssh_string("publickey-hostbound-v00@openssh.com") + b"\x01" + ssh_string("ssh-ed25519") + ssh_string(ed25519_blob)
             + ssh_string(p256_blob))
sshsig_data = (b"SSHSIG" + ssh_string("git") + ssh_string(b"") + ssh_string("sha512")
               + ssh_string(hashlib.sha512(b"message").digest()))
session_bind = ssh_string(ed25519_blob) + ssh_string(session_id) + ssh_string(ed25519_signature_of_session) + b"\x01"
for name, body in {
    "request-identities": b"\x0b",
    "sign-userauth": b"\x0d" + ssh_string(rsa_blob) + ssh_string(userauth) + struct.pack(">I", 2),
    "sign-hostbound": b"\x0d" + ssh_string(ed25519_blob) + ssh_string(hostbound) + struct.pack(">I", 0),
    "sign-sshsig": b"\x0d" + ssh_string(p256_blob) + ssh_string(sshsig_data) + struct.pack(">I", 0),
    "add-ed25519": b"\x11" + ed25519_fields + ssh_string("rfc8032"),
    "add-p256-constrained": b"\x19" + p256_fields + ssh_string("laptop") + b"\x01" + struct.pack(">I", 600) + b"\x02"
    + b"\x03" + struct.pack(">I", 10) + b"\xff" + ssh_string("restrict-destination-v00@openssh.com") + ssh_string(b"")
    + b"\xff" + ssh_string("associated-certs-v00@openssh.com") + b"\x00" + ssh_string(b""),
    "add-rsa-1024": b"\x11" + ssh_string("ssh-rsa") + b"".join(ssh_string(b"\x00\xc5" + b"\x3a" * 127) for _ in range(6)) + ssh_string(""),
    "add-dsa": b"\x11" + ssh_string("ssh-dss") + ssh_string(b"\x01") * 5 + ssh_string(""),
    "remove-identity": b"\x12" + ssh_string(ed25519_blob),
    "remove-all": b"\x13",
    "add-smartcard": b"\x14" + ssh_string("/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so") + ssh_string("123456"),
    "remove-smartcard": b"\x15" + ssh_string("/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so") + ssh_string(""),
    "lock": b"\x16" + ssh_string("passphrase"),
    "unlock": b"\x17" + ssh_string("passphrase"),
    "session-bind": b"\x1b" + ssh_string("session-bind@openssh.com") + session_bind,
    "extension-query": b"\x1b" + ssh_string("query"),
    "unknown-type": b"\x09",
    "trailing-byte": b"\x0b\x00",
}.items():
    write("FuzzSSHAgentMessage", f"request-{name}", b"\x00" + agent_frame(body))
write("FuzzSSHAgentMessage", "request-too-long", b"\x00" + struct.pack(">I", 256 * 1024 + 1) + b"\x0b")
for name, body in {
    "failure": b"\x05",
    "success": b"\x06",
    "identities": b"\x0c" + struct.pack(">I", 2) + ssh_string(ed25519_blob) + ssh_string("rfc8032") + ssh_string(rsa_blob) + ssh_string(""),
    "signature": b"\x0e" + ssh_string(ed25519_signature_of_session),
    "extension-failure": b"\x1c",
}.items():
    write("FuzzSSHAgentMessage", f"answer-{name}", b"\x01" + agent_frame(body))
write("FuzzSSHAgentMessage", "session-bind", b"\x02" + session_bind)
write("FuzzSSHAgentMessage", "session-bind-rsa-host", b"\x02" + ssh_string(rsa_blob) + ssh_string(session_id) + ssh_string(rsa_signature_of_userauth) + b"\x00")
write("FuzzSSHAgentMessage", "signature-userauth", b"\x03" + ssh_string(rsa_blob) + ssh_string(rsa_signature_of_userauth) + userauth)
write("FuzzSSHAgentMessage", "signature-sshsig", b"\x03" + ssh_string(p256_blob) + ssh_string(p256_signature_of_sshsig) + sshsig_data)
write("FuzzSSHAgentMessage", "signature-hostbound", b"\x03" + ssh_string(ed25519_blob) + ssh_string(ed25519_signature_of_session) + hostbound)
write("FuzzSSHAgentMessage", "stored-ed25519", b"\x04\x01" + ed25519_fields)
write("FuzzSSHAgentMessage", "stored-p256", b"\x04\x01" + p256_fields)

# FuzzProcessStat: mode byte 0 = a stat line, 1 = a name field and the numbers of a line the harness writes.
stat_tail = " ".join(str(n * 7) for n in range(4, 53))
for name, comm in {"bash": "bash", "sd-pam": "(sd-pam)", "parenthesis": "a) b", "spaces": "x y z"}.items():
    write("FuzzProcessStat", f"line-{name}", b"\x00" + f"4242 ({comm}) S 4241 4242 4242 34816 4242 {stat_tail}\n".encode())
    write("FuzzProcessStat", f"name-{name}", b"\x01" + field(comm) + b"S" + struct.pack(">IIQ", 4242, 34816, 987654))

# FuzzConfigFile (UnlockWindowCLITests, ConfigFileCLITests): mode byte 0 = a path field and the file,
# 1 = a duration, 2 = $BIOMETRICS_VAULT_UNLOCK_WINDOW's field and a file.
path = "/home/u/.config/biometrics-vault/config"
for name, text in {
    "five-minutes": "unlock-window = 5m\n",
    "comment-crlf": "  unlock-window=90  # a comment\r\n",
    "only-comment": "# only a comment\n\n",
    "off": "unlock-window = off\n",
    "twice": "unlock-window = 1h\nunlock-window = 2m\n",
    "invalid-value": "unlock-window = 5 minutes\nunlock-window = 2d\n",
    "unknown-key": "colour = blue\nunlock-window = 1m\n",
    "no-equals": "unlock-window\n",
    "control-characters": "unlock-window = \x1b]0;owned\x07\n\x1b[31mcolour\x00 = x\x1b]8;;http://evil\x07\nno equals \x1b[2J\n",
    "many-bad-lines": "x\n" * 20 + "unlock-window = 2m\n",
}.items():
    write("FuzzConfigFile", f"file-{name}", b"\x00" + field(path) + text.encode())
for index, text in enumerate(["90", "90s", "15m", "1h", "24h", "0", "off", "OFF", "", "-5", "25h", "1d", "1.5m", "m",
                              "99999999999999999999", "1440M", "0086400"]):
    write("FuzzConfigFile", f"duration-{index:02}", b"\x01" + text.encode())
write("FuzzConfigFile", "variable-valid", b"\x02" + field("5m") + b"unlock-window = 1m\n")
write("FuzzConfigFile", "variable-hostile", b"\x02" + field("\x1b]0;owned\x07") + b"unlock-window = 1m\nx\n")


# FuzzSecretServiceReply (SessionEncryptionTests, HostileProviderTests): mode byte 0 = GetSecrets,
# 1 = Properties.Get, 2 = SearchItems, 3 = OpenSession, 4 = a secret to decrypt, 5 = a key exchange.
def object_path(path):
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
    return field(bytes(63 if c == "/" else alphabet.index(c) for c in path.strip("/")))


def unhex(text):
    return bytes.fromhex(text)


iv = bytes(range(16))
vector_ciphertexts = [
    unhex("dac3e639bfd0c956a1517b96c1fb9d1d2469756c0e53ee52f1ba087eb61202777e1d685827fec86bac440e5ff6889bb2"),
    unhex("5d056e167e98c31f8cf9f410613c8f412806615a2ffc22a582b8281621d4ff0a"),
    unhex("17b0262e04a0a66b355db6f2fb8e88c7"),
    unhex("7241c3183304104b1d56e2ddfaa775a7"),
    unhex("eae79b7549a77f9b4bd4a76e3187478e"),
]
secret = b'{"user":"alice","token":"s3cret"}'
padded = secret + bytes([16 - len(secret) % 16]) * (16 - len(secret) % 16)
for index, ciphertext in enumerate(vector_ciphertexts):
    write("FuzzSecretServiceReply", f"decrypt-vector-{index}", b"\x04\x02" + iv + field(ciphertext))
write("FuzzSecretServiceReply", "decrypt-padded-plaintext", b"\x04\x00" + iv + field(padded))
write("FuzzSecretServiceReply", "decrypt-short-iv", b"\x04\x03" + field(iv[:8]) + field(vector_ciphertexts[0]))
write("FuzzSecretServiceReply", "decrypt-empty", b"\x04\x02" + iv + field(b""))

entry = b"\x00" + b"\x02" + iv + field(vector_ciphertexts[0]) + field("text/plain")
write("FuzzSecretServiceReply", "get-secrets", b"\x00\x01" + entry)
write("FuzzSecretServiceReply", "get-secrets-plaintext", b"\x00\x01" + b"\x00\x00" + iv + field(padded) + field("text/plain"))
write("FuzzSecretServiceReply", "get-secrets-other-item-first",
      b"\x00\x02" + b"\x01" + object_path("/org/freedesktop/secrets/collection/login/3") + b"\x02" + iv + field(b"x" * 16) + field("") + entry)
write("FuzzSecretServiceReply", "get-secrets-other-session",
      b"\x00\x01" + b"\x02" + object_path("/org/freedesktop/secrets/session/s9") + b"\x02" + iv + field(vector_ciphertexts[0]) + field(""))
write("FuzzSecretServiceReply", "get-secrets-empty-value", b"\x00\x01" + b"\x00\x02" + iv + field(b"") + field("text/plain"))
write("FuzzSecretServiceReply", "get-secrets-none", b"\x00\x00")

attributes = [("xdg:schema", "io.github.biometricsvault.Plain"), ("service", "bv-test"), ("username", "alice"), ("bv-header", "bv1;none")]
write("FuzzSecretServiceReply", "attributes",
      b"\x01\x03" + bytes([len(attributes)]) + b"".join(field(k) + field(v) for k, v in attributes))
write("FuzzSecretServiceReply", "attributes-repeated", b"\x01\x03\x02" + field("username") + field("alice") + field("username") + field("bob"))
write("FuzzSecretServiceReply", "created", b"\x01\x05" + struct.pack(">Q", 1700000000))
write("FuzzSecretServiceReply", "locked", b"\x01\x04\x01")
write("FuzzSecretServiceReply", "locked-in-variant", b"\x01\x09\x04\x01")
write("FuzzSecretServiceReply", "properties", b"\x01\x0a\x02" + field("Label") + b"\x00" + field("item") + field("Locked") + b"\x04\x00")

write("FuzzSecretServiceReply", "search",
      b"\x02\x02" + object_path("/org/freedesktop/secrets/collection/login/1") + object_path("/org/freedesktop/secrets/collection/login/2")
      + b"\x01" + object_path("/org/freedesktop/secrets/collection/kdewallet/7"))

server_keys = [
    unhex("0c2c7c2d97d482632eaccb5eee13dd155a495548fc00c7363e828eb9db43f73bc595d0be44f730b695e42be52d243d19"
          "bdf31a7544cd9258edc1f2ce7bf4caa04d11652b0fd8eb178e4cd83ef30d8f0cdfb15218a00a499d5313cb5a0acdf89f"
          "73fc95711ae6cea70df5b6d370fd75df9efd7e3d19925d40c84188cddbd7f314"),
    unhex("7db22d5b10426fbf875bc1dc7b0d5e998ecfb5bcdad13edc4e7df1f77ab7cd58043334e184a0f60c5f1d61d0e31fe81d"
          "8671cce4caa581fc6e88121bd9f52579bf3887a2ee8ec68da7627d41620ac9fca5231cd01a2e5f1d8302b5d9a3b161de"
          "21c295578d6db6c9e4eb28ebbac53686def1b1f3443c8628dcc3e3f8982c5acc"),
]
session = object_path("/org/freedesktop/secrets/session/s3")
for index, key in enumerate(server_keys):
    write("FuzzSecretServiceReply", f"open-session-{index}", b"\x03\x00" + field(key) + session)
write("FuzzSecretServiceReply", "open-session-p-minus-2", b"\x03\x01" + struct.pack(">H", 2) + session)
write("FuzzSecretServiceReply", "open-session-two", b"\x03\x02\x01\x02" + session)
write("FuzzSecretServiceReply", "open-session-not-bytes", b"\x03\x03\x00" + field("key") + session)
for index, exponent in enumerate(["987464fd1ba9da3dab12ab8db8072c14fdb0b5556ecf128770746ee0aca452df",
                                  "8000000000000000000000000000000000000000000000000000000000000671", "01"]):
    write("FuzzSecretServiceReply", f"exchange-{index}", b"\x05" + field(unhex(exponent)))

# FuzzVaultServiceRequest (VaultServiceCLITests, VaultServiceAuditTests): byte 0 = the method (the order of
# VaultServiceMethod.allCases; 14 = a name the interface does not have), byte 1 odd = the method's input
# type, then the body serialized as GVariant's normal form (little-endian), as GDBus hands it over.
def gvariant_tuple(members):
    alignment = {"s": 1, "ay": 1, "b": 1, "u": 4, "t": 8}
    fixed = {"b", "u", "t"}
    if not members:
        return b"\x00"
    body = b""
    ends = []
    for index, (kind, value) in enumerate(members):
        body += b"\x00" * (-len(body) % alignment[kind])
        if kind == "s":
            body += value.encode() + b"\x00"
        elif kind == "ay":
            body += bytes(value)
        elif kind == "b":
            body += bytes([1 if value else 0])
        elif kind == "u":
            body += struct.pack("<I", value)
        else:
            body += struct.pack("<Q", value)
        if kind not in fixed and index != len(members) - 1:
            ends.append(len(body))
    if all(kind in fixed for kind, _ in members):
        return body + b"\x00" * (-len(body) % max(alignment[kind] for kind, _ in members))
    size = next(size for size in (1, 2, 4, 8) if len(body) + size * len(ends) <= (1 << (8 * size)) - 1)
    return body + b"".join(end.to_bytes(size, "little") for end in reversed(ends))


grant = list(range(32))
header = "bv1;p1;0123456789abcdef"
requests = {
    "status": (0, []),
    "attest": (1, [("ay", grant)]),
    "authenticate": (2, [("s", "biometryCurrentSet"), ("s", "Unlock 'github'"), ("s", "biometrics-vault"), ("u", 300), ("s", "terminal")]),
    "authenticate-owner": (3, [("s", "Reset 'github'")]),
    "cancel": (4, []),
    "revoke": (5, [("ay", grant)]),
    "read": (6, [("s", "biometrics-vault"), ("s", "github"), ("ay", grant)]),
    "read-hostile-key": (6, [("s", "biometrics-vault"), ("s", "../\u202e" + "k" * 300), ("ay", [])]),
    "write": (7, [("s", "biometrics-vault"), ("s", "github"), ("s", header), ("ay", list(b'{"token":"t"}')),
                  ("s", "matching"), ("s", header), ("ay", grant)]),
    "write-absent": (7, [("s", "svc"), ("s", "k"), ("s", "bv1;n"), ("ay", list(b"{}")), ("s", "absent"), ("s", ""), ("ay", [])]),
    "delete": (8, [("s", "biometrics-vault"), ("s", "github")]),
    "lock": (9, []),
    "audit": (10, [("t", 1_700_000_000)]),
    "list": (11, [("s", "biometrics-vault")]),
    "register-prompter": (12, []),
    "cancel-prompt": (13, [("t", 7)]),
}
for name, (method, members) in requests.items():
    write("FuzzVaultServiceRequest", name, bytes([method, 1]) + gvariant_tuple(members))
write("FuzzVaultServiceRequest", "read-as-list", b"\x06\x00\x03(s)" + gvariant_tuple([("s", "svc")]))
write("FuzzVaultServiceRequest", "unknown-member", b"\x0e\x01" + gvariant_tuple([("s", "svc")]))

# FuzzProviderRecord: byte 0 = 0 a catalog, 1 an item record, 2 a payload (then one byte of part size).
record = b'{"label":"GitHub token","attributes":{"service":"github","username":"u"},"contentType":"text/plain","created":1700000000,"modified":1700000001,"policy":"biometryAny"}'
write("FuzzProviderRecord", "catalog", b"\x00" + b'{"collections":[{"id":"login","label":"Login","created":1,"modified":2}],"aliases":{"default":"login"}}')
write("FuzzProviderRecord", "item-record", b"\x01" + record)
write("FuzzProviderRecord", "payload-plain", b"\x02\x00" + struct.pack(">IIQ", len(record), 0, 7) + record + b"secret")
write("FuzzProviderRecord", "payload-parts", b"\x02\x10" + struct.pack(">IIQ", 0, 2, 9) + b"first-part")
write("FuzzProviderRecord", "payload-cut", b"\x02\x00" + struct.pack(">IIQ", 4096, 0, 1) + record)
