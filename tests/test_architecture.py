"""The layering the project promises, checked from the source:

- engine/ and models/ never touch Streamlit; pages reach the engine only through the service API;
- the packages of engine/ depend one way: ingest, store and fields never import query or
  answer, query never imports answer, and nothing below the pipeline imports it, the
  service, the command line, the evaluation or the views; the review grid and playbook
  (engine/review) sit on the pipeline, under the service;
- no import cycle between modules, and no engine module over 400 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

from engine.settings import PROJECT_ROOT

MAX_MODULE_LINES = 400
TOP = ("engine.pipeline", "engine.service", "engine.cli", "engine.eval", "engine.views")
REVIEW = "engine.review"  # the grid and the playbook review: one more consumer of the pipeline

#: package -> packages (and top-level modules) it must never import
FORBIDDEN = {
    "models": ("engine",),
    "engine.text": ("engine.ingest", "engine.store", "engine.fields", "engine.query", "engine.answer", REVIEW, *TOP),
    "engine.ingest": ("engine.query", "engine.answer", REVIEW, *TOP),
    "engine.store": ("engine.query", "engine.answer", REVIEW, *TOP),
    "engine.fields": ("engine.query", "engine.answer", REVIEW, *TOP),
    "engine.query": ("engine.answer", REVIEW, *TOP),
    "engine.answer": (REVIEW, *TOP),
    "engine.pipeline": (REVIEW, *TOP[1:]),
    REVIEW: TOP[1:],
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, members: bool = True) -> set[str]:
    """Every module a file imports, at the top or inside a function; with `members`, `from a
    import b` counts as `a.b` too, since b may be a module."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if members:
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _sources() -> dict[str, Path]:
    return {_module_name(p): p for folder in ("engine", "models") for p in (PROJECT_ROOT / folder).rglob("*.py")}


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_engine_and_models_do_not_import_streamlit():
    for path in _sources().values():
        assert not any(name.split(".")[0] == "streamlit" for name in _imports(path)), path


ALLOWED_ENGINE_MODULES = {"engine.service", "engine.errors", "engine.settings"}


def test_pages_use_the_service_api_not_the_store():
    for path in [PROJECT_ROOT / "app.py", *(PROJECT_ROOT / "pages").glob("*.py"), *(PROJECT_ROOT / "ui").glob("*.py")]:
        imported = _imports(path, members=False)
        forbidden = {name for name in imported if name.startswith("engine") and name not in ALLOWED_ENGINE_MODULES}
        forbidden |= {name for name in imported if name.startswith(("lancedb", "pymupdf", "fitz", "llama_index"))}
        assert not forbidden, (path, forbidden)


def test_the_packages_depend_one_way():
    broken = []
    for name, path in _sources().items():
        for package, forbidden in FORBIDDEN.items():
            if not _within(name, package):
                continue
            bad = sorted(i for i in _imports(path) if any(_within(i, f) for f in forbidden))
            broken += [f"{name} imports {i}" for i in bad]
    assert broken == []


def test_no_import_cycle_between_modules():
    sources = _sources()
    graph = {name: {i for i in _imports(path) if i in sources and i != name} for name, path in sources.items()}
    # a package's __init__ re-exporting its modules is not a cycle of theirs
    graph = {name: {i for i in deps if not _within(name, i)} for name, deps in graph.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_no_engine_module_is_over_400_lines():
    long = {name: n for name, path in _sources().items() if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert long == {}
