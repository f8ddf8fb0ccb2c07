"""`python -m redstring.cli`: the same as the `redstring` console script."""

from __future__ import annotations

from redstring.cli.main import main

raise SystemExit(main())
