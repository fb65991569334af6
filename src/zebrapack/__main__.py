"""``python -m zebrapack``: the same as the ``zebrapack`` command."""

import sys

from .cli import main

sys.exit(main())
