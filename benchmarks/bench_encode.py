"""Encode speed: zebrapack vs msgspec vs msgpack.packb of an equivalent dict.

    python -m benchmarks.bench_encode

zebrapack encodes the generated class by its schema (strict typing included),
msgspec an equivalent slots dataclass, msgpack.packb the record as plain dicts.
"""

from __future__ import annotations

import msgpack
import msgspec

import zebrapack

from ._records import SCHEMA_PATH, as_dict, cases, measure, print_table


def main() -> None:
    schema = zebrapack.load(SCHEMA_PATH)
    encoder = msgspec.msgpack.Encoder()
    rows = []
    for case in cases(schema):
        plain_dict = as_dict(case.plain_value)
        encode = schema.encode
        value = case.zebrapack_value
        plain = case.plain_value
        assert schema.decode(encode(value)) == value
        packb = msgpack.packb
        rows.append((
            case.name,
            measure(lambda: encode(value)),
            measure(lambda: encoder.encode(plain)),
            measure(lambda: packb(plain_dict, datetime=True)),
        ))
    print_table("encode, ns per record (lower is better)", rows)


if __name__ == "__main__":
    main()
