"""The layering the project promises: engine/ and models/ never touch Streamlit; pages
reach the engine only through the service API."""

from __future__ import annotations

import ast

from engine.settings import PROJECT_ROOT


def _imports(path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_engine_and_models_do_not_import_streamlit():
    for folder in ("engine", "models"):
        for path in (PROJECT_ROOT / folder).rglob("*.py"):
            assert not any(name.split(".")[0] == "streamlit" for name in _imports(path)), path


ALLOWED_ENGINE_MODULES = {"engine.service", "engine.errors", "engine.settings"}


def test_pages_use_the_service_api_not_the_store():
    for path in [PROJECT_ROOT / "app.py", *(PROJECT_ROOT / "pages").glob("*.py"), *(PROJECT_ROOT / "ui").glob("*.py")]:
        imported = _imports(path)
        forbidden = {name for name in imported if name.startswith("engine") and name not in ALLOWED_ENGINE_MODULES}
        forbidden |= {name for name in imported if name.startswith(("lancedb", "pymupdf", "fitz", "llama_index"))}
        assert not forbidden, (path, forbidden)
