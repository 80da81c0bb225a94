from docai.cli.main import main

raise SystemExit(main())
