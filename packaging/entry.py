"""The bundle's entry point: the same ``pos-app`` command as ``pip install`` gives."""

import sys
import warnings

from pos_app.cli import main

# The bundle leaves Pillow out (packaging/slim.py): fpdf2 then warns once that it cannot
# add images, which receipts never have.
warnings.filterwarnings("ignore", message="Pillow could not be imported", category=UserWarning)

if __name__ == "__main__":
    sys.exit(main())
