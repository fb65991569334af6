"""The Go peer against the reference vectors, and Go -> Python -> Go round trips of them.

The peer must first reproduce the reference: every byte-exact vector it reads
it writes again byte for byte. Then each vector goes through Python (decode,
encode) and back into Go's strict reader, which must accept it and write the
vector's bytes again.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from support.vectors import MANIFEST, case_id, reencoded_by_reader, vector_bytes, vector_schema
from support.go_peer import GoPeer, go_peer  # noqa: F401  (go_peer is a fixture)
from support.expected_values import same

#: The schemas the peer has Go structs for (every struct of each).
PEER_SCHEMAS = ("zp", "zpn", "evo1", "evo2")

CASES = [case for case in MANIFEST if case["schema"].removesuffix(".z") in PEER_SCHEMAS]
BYTE_EXACT = [case for case in CASES if case["byte_exact"]]
INEXACT = [case for case in CASES if not case["byte_exact"]]


def peer_roundtrip(peer: GoPeer, case: dict[str, Any], data: bytes) -> bytes:
    return peer.roundtrip(case["schema"].removesuffix(".z"), case["type"], data)


def decode_records(case: dict[str, Any], data: bytes) -> list[Any]:
    schema = vector_schema(case["schema"])
    if "count" in case:
        return schema.decode_all(data, type=case["type"])
    return [schema.decode(data, type=case["type"])]


def python_reencoding(case: dict[str, Any]) -> bytes:
    """The vector decoded by zebrapack and encoded again as the case was written."""
    schema = vector_schema(case["schema"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Compound.Old is deprecated
        return b"".join(schema.encode(record, structnames=case["structnames_on_wire"])
                        for record in decode_records(case, vector_bytes(case)))


@pytest.mark.parametrize("case", BYTE_EXACT, ids=case_id)
def test_go_peer_rewrites_reference_vector_byte_for_byte(go_peer: GoPeer, case: dict[str, Any]) -> None:
    assert peer_roundtrip(go_peer, case, vector_bytes(case)) == reencoded_by_reader(case)


@pytest.mark.parametrize("case", INEXACT, ids=case_id)
def test_go_peer_rewrites_inexact_vector_to_its_value(go_peer: GoPeer, case: dict[str, Any]) -> None:
    # The vector's value as zebrapack reads it, which test_vectors.py checks against
    # the typed JSON (that JSON cannot say the Go type of an interface{} number).
    rewritten = peer_roundtrip(go_peer, case, vector_bytes(case))
    same(decode_records(case, rewritten), decode_records(case, vector_bytes(case)))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_go_reads_python_reencoding_of_vector_back_to_the_vector(go_peer: GoPeer, case: dict[str, Any]) -> None:
    rewritten = peer_roundtrip(go_peer, case, python_reencoding(case))
    if case["byte_exact"]:
        assert rewritten == reencoded_by_reader(case)
    else:
        same(decode_records(case, rewritten), decode_records(case, vector_bytes(case)))
