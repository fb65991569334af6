"""Bytes damaged the ways the mutation tests damage them: a bit flipped, a byte replaced
(often by a lead byte that claims a type or a length), bytes inserted, deleted or
duplicated, the end cut off. A mutation is (operation, position, argument); positions
wrap around the data."""

from __future__ import annotations

import random

#: Lead bytes of every msgpack family, the never-used one, and the largest lengths.
INTERESTING = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc6, 0xc7, 0xc9,
               0xca, 0xcb, 0xcc, 0xcf, 0xd0, 0xd3, 0xd4, 0xd8, 0xd9, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff]

OPERATIONS = ("flip", "replace", "insert", "delete", "duplicate", "truncate")


def mutated(seed: bytes, mutations: list[tuple[str, int, object]]) -> bytes:
    data = bytearray(seed)
    for operation, position, argument in mutations:
        if not data:
            break
        at = position % len(data)
        if operation == "flip":
            data[at] ^= 1 << argument  # type: ignore[operator]
        elif operation == "replace":
            data[at] = argument  # type: ignore[call-overload]
        elif operation == "insert":
            data[at:at] = argument  # type: ignore[index]
        elif operation == "delete":
            del data[at:at + argument]  # type: ignore[operator]
        elif operation == "duplicate":
            data[at:at] = data[at:at + argument]  # type: ignore[operator]
        else:
            del data[at:]
    return bytes(data)


def drawn_mutations(rng: random.Random, most: int = 3) -> list[tuple[str, int, object]]:
    """One to ``most`` mutations drawn by ``rng`` (hypothesis draws its own in the fuzz tests)."""
    arguments = {
        "flip": lambda: rng.randrange(8),
        "replace": lambda: rng.choice(INTERESTING) if rng.random() < 0.5 else rng.randrange(256),
        "insert": lambda: rng.randbytes(rng.randint(1, 6)),
        "delete": lambda: rng.randint(1, 16),
        "duplicate": lambda: rng.randint(1, 32),
        "truncate": lambda: 0,
    }
    return [(operation, rng.randrange(1 << 16), arguments[operation]())
            for operation in (rng.choice(OPERATIONS) for _ in range(rng.randint(1, most)))]
