from polyforge_engine.cli import main

raise SystemExit(main())
