"""One place for the settings every part of the engine reads."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, Field

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_STORE = PROJECT_ROOT / "data" / "store"
SAMPLES_DIR = PROJECT_ROOT / "data" / "samples"
STORE_ENV = "CLAUSEGRAPH_DB"


def store_path(explicit: str | Path | None = None) -> Path:
    """Where the store lives: --db, else $CLAUSEGRAPH_DB, else data/store."""
    chosen = explicit or os.environ.get(STORE_ENV) or DEFAULT_STORE
    return Path(chosen).expanduser().resolve()


class Settings(BaseModel):
    """Engine settings; the defaults are what the app ships with."""

    store_dir: Path = Field(default_factory=store_path)
    embedding_model: str = "all-MiniLM-L6-v2"
    embed_batch_size: int = Field(default=32, ge=1)
    window_overlap_tokens: int = Field(default=32, ge=0, description="tokens shared by consecutive windows")
    # The app's uploader stops larger files itself (.streamlit/config.toml, kept equal by a test);
    # the engine checks the size again, before reading a file, for the command line.
    max_upload_mb: int = Field(default=200, ge=1, description="largest file ingested, in MB")
    max_pages: int = Field(default=5000, ge=1, description="most pages a PDF may have to be ingested")
