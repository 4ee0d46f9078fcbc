import sys

from sanma.cli import main

sys.exit(main())
