from skillsift.cli import main

raise SystemExit(main())
