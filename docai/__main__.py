from docai.cli import main

raise SystemExit(main())
