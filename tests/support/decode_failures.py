"""One input for each way a record can fail to decode, against zp.z: the robustness,
leak and thread tests run each of them."""

from __future__ import annotations

from support.vectors import VECTORS, vector_schema

ZP = vector_schema("zp.z")
A_SEED = (VECTORS / "zp" / "A_seed.zpk").read_bytes()


def record(name: str, *entries: bytes) -> bytes:
    """A zebrapack struct map: the -1 name, then raw key-value entries."""
    encoded = name.encode()
    count = len(entries) + 1
    header = bytes([0x80 | count]) if count <= 15 else b"\xde" + count.to_bytes(2, "big")
    return header + bytes([0xff, 0xa0 | len(encoded)]) + encoded + b"".join(entries)


FAILURES = {
    "truncated": A_SEED[:-1],
    "type-mismatch": record("Inner", b"\x00\xa1x"),
    "invalid-utf8": record("Prims", b"\x00\xa1\xff"),
    "never-used-byte": record("Prims", b"\x13\x92\x01\xc1"),
    "huge-header": record("Prims", b"\x13\xdd\xff\xff\xff\xff"),
    "unhashable-key": record("Prims", b"\x13\x81\x90\x00"),
    "too-deep": record("Prims", b"\x13" + b"\x91" * 5000 + b"\xc0"),
    "trailing": A_SEED + b"\x00",
    "bad-time": record("Prims", b"\x12\xc7\x0c\x09" + b"\x7f" * 12),      # ext 9 is no time
}
