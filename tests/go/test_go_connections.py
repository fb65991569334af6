"""A Go service on the other end of a TCP connection (127.0.0.1, an ephemeral port).

``zpeer tcp-send`` (tests/go/stream) writes records with the msgp runtime's
``msgp.Writer``, flushing each in seeded random pieces of 1 to 200 bytes, and waits
for Python's acknowledgement of each (the record count, a msgpack uint) before it
sends the next: a Python reader that held a record back until more bytes came
would never acknowledge it, and the exchange fails on Go's bounded wait (and
Python's socket timeout), no timing threshold deciding. ``zpeer tcp-receive`` is
the other direction: Go reads records with ``msgp.Reader`` and its strict readers,
acknowledging each, and at the end writes back what it read. Python reads and
writes with the blocking API (sockets, ``iter_decode``, ``RecordWriter``) and with
asyncio (``aiter_decode``, ``AsyncRecordWriter``).
"""

from __future__ import annotations

import asyncio
import random
import select
import socket
import subprocess
import tempfile
import warnings
from datetime import datetime, timedelta, timezone
from typing import IO, Any

import msgpack
import pytest
from support.vectors import VECTORS, vector_schema
from support.go_peer import GoPeer, go_peer  # noqa: F401  (the session fixture)

import zebrapack
from zebrapack import TornTailError

ZP = vector_schema("zp.z")
ZPN = vector_schema("zpn.z")
#: Bounds every wait on the Python side; Go's own waits are 20 s (stream.AckTimeout).
TIMEOUT = 30.0


def a_records(seed: int, count: int = 40) -> list[Any]:
    """A records of every size, from empty to a 5 kB name (many pieces)."""
    rng = random.Random(seed)
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    return [ZP.types.A(Name="".join(rng.choice("abcé€𝄞") for _ in range(rng.choice([0, 3, 40, 700, 5000]))),
                       Bday=epoch + timedelta(microseconds=rng.randrange(-6 * 10**16, 2 * 10**17)) if rng.random() < .7 else None,
                       Phone=f"+1 555 {rng.randrange(10**7):07}" if rng.random() < .5 else "",
                       Sibs=rng.choice([0, 1, -1, 2**31, -2**63, 2**63 - 1]), GPA=rng.uniform(-1e6, 1e6),
                       Friend=rng.random() < .5) for _ in range(count)]


def compound_records() -> list[Any]:
    return [ZP.decode((VECTORS / "zp" / f"{name}.zpk").read_bytes())
            for name in ("Compound_full", "Compound_large", "Compound_zero", "Compound_single")]


def encoded(schema: zebrapack.Schema, records: list[Any]) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)     # Compound.Old is deprecated
        return b"".join(schema.encode(record) for record in records)


class GoEnd:
    """A running ``zpeer tcp-send`` or ``tcp-receive``: the address it listens on, then its output."""

    def __init__(self, peer: GoPeer, *args: str, stdin: bytes = b"") -> None:
        with tempfile.TemporaryFile() as records:
            records.write(stdin)
            records.seek(0)
            self.process = subprocess.Popen([peer.binary, *args], stdin=records, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE)
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT)
        line = self.process.stdout.readline() if ready else b""
        if not line:
            self.process.kill()
            pytest.fail(f"zpeer {' '.join(args)} did not start: {self.finish(check=False)}")
        host, port = line.decode().strip().rsplit(":", 1)
        self.address = (host, int(port))

    def finish(self, check: bool = True) -> bytes:
        """Its output after the address; it must have succeeded."""
        stdout, stderr = self.process.communicate(timeout=TIMEOUT)
        if check:
            assert self.process.returncode == 0, stderr.decode()
        return stdout if check else stderr

    def sent(self) -> tuple[int, int]:
        """(records, bytes of them) from tcp-send's last line."""
        words = self.finish().decode().split()          # "sent N records, B bytes"
        return int(words[1]), int(words[3])


def read_ack(source: IO[bytes]) -> int:
    """One msgpack uint, as msgp.Writer writes it."""
    lead = source.read(1)[0]
    if lead < 0x80:
        return lead
    size = {0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8}[lead]
    return int.from_bytes(source.read(size), "big")


def connect(address: tuple[str, int]) -> socket.socket:
    return socket.create_connection(address, timeout=TIMEOUT)


# -- Go -> Python ----------------------------------------------------------------------------

SENT = {
    "A": (ZP, "zp", "A", a_records(1)),
    "Compound": (ZP, "zp", "Compound", compound_records()),
    "Inner, no struct names": (ZPN, "zpn", "Inner", [ZPN.types.Inner(X=x, Y=y) for x, y in
                                                    [(0, ""), (1, "a"), (-2**31, "é" * 300), (2**31 - 1, "z")]]),
}


@pytest.mark.parametrize("case", SENT.values(), ids=SENT.keys())
@pytest.mark.parametrize("source", ["socket", "makefile"])
def test_records_from_a_go_writer_come_out_one_by_one_before_the_next_is_sent(
        go_peer: GoPeer, case: Any, source: str) -> None:
    schema, schema_name, type_name, records = case
    go = GoEnd(go_peer, "tcp-send", schema_name, type_name, "11", stdin=encoded(schema, records))
    got = []
    with connect(go.address) as sock, sock.makefile("rb") as file:
        for record in schema.iter_decode(sock if source == "socket" else file, type_name, strict=True):
            got.append(record)
            sock.sendall(msgpack.packb(len(got)))
    assert go.sent()[0] == len(records)
    assert got == records           # values: Go writes map entries in its random order


def test_records_from_a_go_writer_come_out_one_by_one_through_asyncio(go_peer: GoPeer) -> None:
    records = a_records(2)
    go = GoEnd(go_peer, "tcp-send", "zp", "A", "12", stdin=encoded(ZP, records))

    async def read() -> list[Any]:
        reader, writer = await asyncio.open_connection(*go.address)
        got = []
        try:
            async for record in ZP.aiter_decode(reader, strict=True):
                got.append(record)
                writer.write(msgpack.packb(len(got)))
                await writer.drain()
        finally:
            writer.close()
            await writer.wait_closed()
        return got

    got = asyncio.run(asyncio.wait_for(read(), TIMEOUT))
    assert go.sent()[0] == len(records)
    assert got == records


@pytest.mark.parametrize("api", ["blocking", "asyncio"])
def test_a_go_writer_closing_inside_a_record_gives_every_complete_record_then_a_torn_tail(
        go_peer: GoPeer, api: str) -> None:
    records = a_records(3, count=10)
    go = GoEnd(go_peer, "tcp-send", "zp", "A", "13", "torn", stdin=encoded(ZP, records))
    got: list[Any] = []
    with pytest.raises(TornTailError) as caught:
        if api == "blocking":
            with connect(go.address) as sock:
                for record in ZP.iter_decode(sock):
                    got.append(record)
                    sock.sendall(msgpack.packb(len(got)))
        else:
            asyncio.run(asyncio.wait_for(_read_acknowledging(go.address, got), TIMEOUT))
    assert got == records
    assert go.sent() == (len(records), caught.value.offset)


async def _read_acknowledging(address: tuple[str, int], got: list[Any]) -> None:
    reader, writer = await asyncio.open_connection(*address)
    try:
        async for record in ZP.aiter_decode(reader):
            got.append(record)
            writer.write(msgpack.packb(len(got)))
            await writer.drain()
    finally:
        writer.close()
        await writer.wait_closed()


# -- Python -> Go ----------------------------------------------------------------------------

@pytest.mark.parametrize("case", SENT.values(), ids=SENT.keys())
def test_records_written_and_flushed_one_by_one_reach_go_s_strict_reader(go_peer: GoPeer, case: Any) -> None:
    schema, schema_name, type_name, records = case
    go = GoEnd(go_peer, "tcp-receive", schema_name, type_name)
    with connect(go.address) as sock, sock.makefile("wb") as out, sock.makefile("rb") as acks:
        writer = schema.writer(out)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            for number, record in enumerate(records, 1):
                writer.write(record)
                writer.flush()                      # the record goes now, not when 64 kB are buffered
                assert read_ack(acks) == number
        writer.close()
        sock.shutdown(socket.SHUT_WR)
        received = go.finish()
    assert schema.decode_all(received, type_name) == records


def test_records_written_through_asyncio_reach_go_s_strict_reader(go_peer: GoPeer) -> None:
    records = a_records(4)
    go = GoEnd(go_peer, "tcp-receive", "zp", "A")

    async def write() -> None:
        reader, stream = await asyncio.open_connection(*go.address)
        try:
            async with ZP.async_writer(stream, buffer_size=1 << 16) as out:
                for number, record in enumerate(records, 1):
                    await out.write(record)
                    await out.flush()
                    assert await _read_ack_async(reader) == number
            stream.write_eof()
        finally:
            stream.close()
            await stream.wait_closed()

    asyncio.run(asyncio.wait_for(write(), TIMEOUT))
    assert ZP.decode_all(go.finish()) == records


async def _read_ack_async(reader: asyncio.StreamReader) -> int:
    lead = (await reader.readexactly(1))[0]
    if lead < 0x80:
        return lead
    return int.from_bytes(await reader.readexactly({0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8}[lead]), "big")


def test_go_refuses_what_its_strict_reader_refuses(go_peer: GoPeer) -> None:
    go = GoEnd(go_peer, "tcp-receive", "zpn", "Inner")
    with connect(go.address) as sock:
        sock.sendall(b"\x81\x00\xcc\x05")           # Inner.X is an int: 0xcc is Go's uint8
        sock.shutdown(socket.SHUT_WR)
        stderr = go.finish(check=False)
    assert go.process.returncode == 1 and b"record 0" in stderr

