import sys

from slimetrail.cli.main import main

sys.exit(main())
