from driftguard.cli import main

raise SystemExit(main())
