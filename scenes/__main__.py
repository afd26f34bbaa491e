"""``python -m scenes`` is the ``qkv-lens`` command."""
from scenes.cli import main

raise SystemExit(main())
