"""The S3 server the object-store tests read and write: moto's, on 127.0.0.1 and a port the
system picks. Run as a script by the tests' fixture: it prints its port, then serves until
its standard input closes (the test process ended, however it ended)."""

from __future__ import annotations

import sys

from moto.server import ThreadedMotoServer


def main() -> None:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    print(server.get_host_and_port()[1], flush=True)
    sys.stdin.read()
    server.stop()


if __name__ == "__main__":
    main()
