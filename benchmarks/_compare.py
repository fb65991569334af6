"""Per-shape decode and encode comparison: zebrapack vs msgspec.Struct vs msgspec's
dataclass mode vs msgpack-python, on the same logical records (see ``_shapes``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import msgpack
import msgspec

from ._harness import Options, Ratio, Timing, emit, interleaved, machine, markdown_table, ns, ratio
from ._shapes import Shape, build_shapes

CONTENDERS = ("zebrapack", "Struct", "dataclass", "msgpack")


@dataclass
class Row:
    shape: Shape
    timings: dict[str, Timing]
    size: int  # zebrapack's bytes for the record

    def vs(self, other: str) -> Ratio:
        return ratio(self.timings["zebrapack"], self.timings[other])


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, timestamp=3, strict_map_key=False)


def _check(label: str, got: Any, want: Any) -> None:
    if got != want:
        raise AssertionError(f"{label}: the benchmark's round trip changed the record")


def decode_contenders(shape: Shape) -> dict[str, Callable[[], Any]]:
    """The four decoders of one shape, each checked to give back the record first."""
    zp_bytes = shape.schema.encode(shape.zebrapack_value)
    struct_bytes = msgspec.msgpack.encode(shape.struct_value)
    plain_bytes = msgspec.msgpack.encode(shape.plain_value)
    msgpack_bytes = msgpack.packb(shape.plain_dict, datetime=True)
    decode = shape.schema.decode
    struct_decode = msgspec.msgpack.Decoder(type(shape.struct_value)).decode
    plain_decode = msgspec.msgpack.Decoder(type(shape.plain_value)).decode
    build = shape.build_plain
    _check(f"{shape.name} zebrapack", decode(zp_bytes), shape.zebrapack_value)
    _check(f"{shape.name} Struct", struct_decode(struct_bytes), shape.struct_value)
    _check(f"{shape.name} dataclass", plain_decode(plain_bytes), shape.plain_value)
    _check(f"{shape.name} msgpack", build(_unpack(msgpack_bytes)), shape.plain_value)
    return {
        "zebrapack": lambda: decode(zp_bytes),
        "Struct": lambda: struct_decode(struct_bytes),
        "dataclass": lambda: plain_decode(plain_bytes),
        "msgpack": lambda: build(_unpack(msgpack_bytes)),
    }


def encode_contenders(shape: Shape) -> dict[str, Callable[[], Any]]:
    """The four encoders of one shape, each checked to write bytes that read back as the record."""
    encode = shape.schema.encode
    encoder = msgspec.msgpack.Encoder()
    struct_value, plain_value, plain_dict, zp_value = (
        shape.struct_value, shape.plain_value, shape.plain_dict, shape.zebrapack_value)
    packb = msgpack.packb
    _check(f"{shape.name} zebrapack", shape.schema.decode(encode(zp_value)), zp_value)
    _check(f"{shape.name} Struct",
           msgspec.msgpack.decode(encoder.encode(struct_value), type=type(struct_value)), struct_value)
    _check(f"{shape.name} dataclass",
           msgspec.msgpack.decode(encoder.encode(plain_value), type=type(plain_value)), plain_value)
    _check(f"{shape.name} msgpack", _unpack(packb(plain_dict, datetime=True)), plain_dict)
    return {
        "zebrapack": lambda: encode(zp_value),
        "Struct": lambda: encoder.encode(struct_value),
        "dataclass": lambda: encoder.encode(plain_value),
        "msgpack": lambda: packb(plain_dict, datetime=True),
    }


def run(direction: str, options: Options, shapes: Sequence[Shape] | None = None) -> list[Row]:
    """Time every shape (default: the eleven of ``_shapes``) in one direction."""
    contenders = decode_contenders if direction == "decode" else encode_contenders
    rows = []
    for shape in build_shapes(options.sizes) if shapes is None else shapes:
        size = len(shape.schema.encode(shape.zebrapack_value))
        rows.append(Row(shape, interleaved(contenders(shape), options), size))
    return rows


def table(rows: list[Row]) -> str:
    header = ["shape", "bytes", "zebrapack", "Struct", "dataclass", "msgpack",
              "zp/Struct", "zp/dataclass", "zp/msgpack", "spread zp / Struct"]
    body = []
    for row in rows:
        t = row.timings
        body.append([row.shape.name, str(row.size), *(ns(t[name].best) for name in CONTENDERS),
                     str(row.vs("Struct")), str(row.vs("dataclass")), str(row.vs("msgpack")),
                     f"{t['zebrapack'].spread:.0%} / {t['Struct'].spread:.0%}"])
    return markdown_table(header, body)


def report(direction: str, rows: list[Row], options: Options) -> str:
    text = (f"{direction}, best ns per record (lower is better); ratios: median over "
            f"{options.rounds} interleaved rounds (min–max), each round the best of {options.best_of} "
            f"batches; GC {'on' if options.gc else 'off'}.\n\n{table(rows)}\n\n{machine()}")
    emit(f"{direction.capitalize()} per shape", text, options, f"{direction}.md")
    return text


def chart(decode_rows: list[Row], encode_rows: list[Row], path: Path) -> None:
    """Horizontal bars: zebrapack / msgspec.Struct per shape, decode and encode, range as error bars."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [row.shape.name for row in decode_rows]
    height = 0.38
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(names) + 1.5))
    for offset, rows, label, color in ((-height / 2, decode_rows, "decode", "#3b7dd8"),
                                       (height / 2, encode_rows, "encode", "#e8862a")):
        ratios = [row.vs("Struct") for row in rows]
        positions = [i + offset for i in range(len(rows))]
        ax.barh(positions, [r.median for r in ratios], height, label=label, color=color,
                xerr=[[r.median - r.low for r in ratios], [r.high - r.median for r in ratios]],
                error_kw={"elinewidth": 1, "capsize": 2})
        for y, r in zip(positions, ratios):
            ax.text(r.high + 0.03, y, f"{r.median:.2f}", va="center", fontsize=7)
    ax.axvline(1.0, color="black", linewidth=1)
    highest = max(row.vs("Struct").high for row in [*decode_rows, *encode_rows])
    ax.set_xlim(0, max(1.1, highest + 0.15))         # room for the labels right of the bars
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("time ratio zebrapack / msgspec.Struct (< 1: zebrapack faster)")
    ax.set_title("zebrapack vs msgspec.Struct, per record shape")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, frameon=False)    # off the bars
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
