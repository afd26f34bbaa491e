"""``python -m qkv_lens`` is the ``qkv-lens`` command."""
from qkv_lens.app.cli import main

raise SystemExit(main())
