"""Decode speed: zebrapack vs msgspec vs msgpack (+ building the dataclass by hand).

    python -m benchmarks.bench_decode

Each library decodes its own bytes of the same logical record into an
equivalent slots dataclass: zebrapack its zid-keyed bytes into the generated
class, msgspec its msgpack into a plain slots dataclass, msgpack.unpackb the
same msgpack followed by building the dataclasses by hand.
"""

from __future__ import annotations

import msgpack
import msgspec

import zebrapack

from ._records import SCHEMA_PATH, cases, measure, plain_a_from_dict, plain_compound_from_dict, print_table


def main() -> None:
    schema = zebrapack.load(SCHEMA_PATH)
    builders = {"A": plain_a_from_dict, "Compound": plain_compound_from_dict}
    rows = []
    for case in cases(schema):
        zp_bytes = schema.encode(case.zebrapack_value)
        msgspec_bytes = msgspec.msgpack.encode(case.plain_value)
        decoder = msgspec.msgpack.Decoder(case.plain_type)
        build = builders[case.name]
        assert schema.decode(zp_bytes) == case.zebrapack_value
        assert decoder.decode(msgspec_bytes) == case.plain_value
        assert build(msgpack.unpackb(msgspec_bytes, timestamp=3, strict_map_key=False)) == case.plain_value
        decode = schema.decode
        rows.append((
            case.name,
            measure(lambda: decode(zp_bytes)),
            measure(lambda: decoder.decode(msgspec_bytes)),
            measure(lambda: build(msgpack.unpackb(msgspec_bytes, timestamp=3, strict_map_key=False))),
        ))
    print_table("decode, ns per record (lower is better)", rows)


if __name__ == "__main__":
    main()
