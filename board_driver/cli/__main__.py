"""`python -m board_driver.cli`: the `treeboard` command."""

import sys

from board_driver.cli import main

sys.exit(main())
