import sys

from board_driver.cli import main

sys.exit(main())
