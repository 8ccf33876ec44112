"""An engine that also runs Lookahead commands, for tests until ``Engine._run`` dispatches them itself
(the lead adds ``elif isinstance(cmd, Lookahead): lookahead.run_lookahead(self, cmd)`` there)."""
from __future__ import annotations

from app.engine.commands import Lookahead
from app.engine.engine import Engine
from app.engine.lookahead import run_lookahead


class LookaheadEngine(Engine):
    def _run(self, cmd) -> None:
        if isinstance(cmd, Lookahead):
            run_lookahead(self, cmd)
        else:
            super()._run(cmd)
