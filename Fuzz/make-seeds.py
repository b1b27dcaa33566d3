#!/usr/bin/env python3
"""Writes the small committed seed corpus under Fuzz/corpus/<target>/ (run from the repository root).

Seeds are well-formed inputs of each format, built from the format descriptions in the sources
(VaultEnvelope.swift, ItemHeader.swift, ItemFile.swift, StoreKeys.swift), plus a few near misses, so
libFuzzer starts past the magic numbers and checksums. Re-running it rewrites the same files.
"""
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
