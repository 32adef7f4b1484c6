import sys

from pos_app.cli import main

sys.exit(main())
