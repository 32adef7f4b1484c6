from pos_app.cli import main
import sys

sys.exit(main())
