"""``python -m scenes`` is the ``qkv-lens`` command."""
from scenes.pipeline.cli import main

raise SystemExit(main())
