"""The base of every model read from a game folder (``game.yaml`` and each game's numbers)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    """Frozen, strict-about-keys base: an unknown key in game.yaml is an error, not ignored."""

    model_config = ConfigDict(frozen=True, extra="forbid")
