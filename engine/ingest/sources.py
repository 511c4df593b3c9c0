"""The files a user hands over for ingest, read with the upload limit: each one's name and bytes,
or the outcome that says why it cannot be ingested (it fails alone; the batch goes on)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from models.document import IngestOutcome, IngestStatus

_MB = 1024 * 1024


def expand_paths(paths: list[Path]) -> list[Path]:
    """Files as given, and every PDF inside the folders given, in a stable order."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() == ".pdf"))
        else:
            files.append(path)
    return files


def failed(file_name: str, message: str) -> IngestOutcome:
    return IngestOutcome(file_name=file_name, status=IngestStatus.FAILED, message=message)


def size_problem(size: int, limit_mb: int) -> str | None:
    if size <= limit_mb * _MB:
        return None
    return f"the file is {size / _MB:,.1f} MB, more than the limit of {limit_mb} MB (setting max_upload_mb)"


def read_file(path: Path, limit_mb: int) -> tuple[str, bytes, str | None]:
    """A file's name and bytes, or why it cannot be ingested."""
    if not path.exists():
        return path.name, b"", "no such file"
    if not path.is_file():
        return path.name, b"", "not a file"
    try:
        too_large = size_problem(path.stat().st_size, limit_mb)
        return (path.name, b"", too_large) if too_large else (path.name, path.read_bytes(), None)
    except OSError as error:
        return path.name, b"", f"cannot read it ({error.strerror})"


def readable(sources: list[Path | tuple[str, bytes]], limit_mb: int) -> Iterator[tuple[str, bytes | IngestOutcome]]:
    """Each source (a path, or an upload's name and bytes) as its name and bytes, or its name and
    the outcome saying why it cannot be read."""
    for source in sources:
        name, data, problem = read_file(source, limit_mb) if isinstance(source, Path) else (*source, size_problem(len(source[1]), limit_mb))
        yield (name, failed(name, problem)) if problem else (name, data)
