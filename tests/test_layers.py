"""The layers hold: the engine imports nothing of the project above it, ``learn`` only the
engine, the bots only the engine and ``learn`` (and themselves), the store nothing of the
server, and nothing in the package the frozen ``legacy/`` folder; and no test module imports
another (shared helpers live under ``tests/fixtures/``).  Read from the source (every ``import``
statement, type-checking ones included), so no module has to be imported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sanma"

# layer -> the project packages its modules may import
ALLOWED: dict[str, tuple[str, ...]] = {
    "engine": ("sanma.engine",),
    "learn": ("sanma.engine", "sanma.learn"),  # the learned policy's data side: above the engine, below the bots
    "bots": ("sanma.engine", "sanma.learn", "sanma.bots"),
}
FORBIDDEN: dict[str, tuple[str, ...]] = {"store": ("sanma.server",)}


def _imports(path: Path, roots: tuple[str, ...] = ("sanma",)) -> list[tuple[int, str]]:
    """(line, module) of every import of ``roots`` in one file; relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            out.append((node.lineno, module))
    return [(line, m) for line, m in out if _inside(m, roots)]


def _files(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


def _inside(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_what_lies_below(layer: str) -> None:
    assert _files(layer), f"no modules found under sanma/{layer}"
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}"
        for path in _files(layer)
        for line, module in _imports(path)
        if not _inside(module, ALLOWED[layer])
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_never_imports_what_lies_above(layer: str) -> None:
    assert _files(layer), f"no modules found under sanma/{layer}"
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}"
        for path in _files(layer)
        for line, module in _imports(path)
        if _inside(module, FORBIDDEN[layer])
    ]
    assert not wrong, "\n".join(wrong)


def test_the_reader_finds_the_imports() -> None:
    modules = {m for _, m in _imports(PACKAGE / "engine" / "kyoku.py")}
    assert {"sanma.engine", "sanma.engine.events", "sanma.engine.legality"} <= modules
    assert _inside("sanma.engine.tiles", ("sanma.engine",)) and not _inside("sanma.engines", ("sanma.engine",))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere in its source (at the top, in a
    function, for the type checker only); ``from pkg import name`` counts as ``pkg.name`` when
    that is a module, else as ``pkg``."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module in modules:
                subs = {f"{node.module}.{a.name}" for a in node.names} & modules.keys()
                found.update(subs or {node.module})
        graph[name] = found - {name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (a path that ends where it starts), or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_the_package_has_no_import_cycle() -> None:
    """No module imports, however late or lazily, a module that imports it back: each layer's
    modules stand in one order (a package's ``__init__`` that re-exports its modules is the one
    place a package points at its own modules, and it is counted like any other)."""
    graph = import_graph()
    assert len(graph) > 100 and "sanma.engine.tiles" in graph["sanma.engine.scoring"]
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.slow
def test_the_package_never_imports_the_legacy_folder() -> None:
    """``legacy/`` (the classic master, the EV master's A/B variants) is frozen for the
    benchmarks; the package stands without it."""
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, module in _imports(path, ("legacy",))
    ]
    assert not wrong, "\n".join(wrong)
    assert _imports(PACKAGE.parent / "legacy" / "master.py", ("legacy",))  # the reader sees such imports


TESTS = PACKAGE.parent / "tests"


def _is_test_module(module: str) -> bool:
    return module.startswith("tests.test_")


def _test_module_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import of a ``tests.test_*`` module in ``source``, and in the
    Python scripts it holds as strings (run in a child process: ``python -c SCRIPT``)."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if _is_test_module(a.name)]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if _is_test_module(node.module):
                out.append((node.lineno, node.module))
            else:  # from tests import test_x
                out += [(node.lineno, m) for a in node.names if _is_test_module(m := f"{node.module}.{a.name}")]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "import" in node.value:
            try:
                inner = _test_module_imports(node.value)
            except SyntaxError:
                continue  # not Python: a page's script, a message
            out += [(node.lineno + line - 1, module) for line, module in inner]
    return sorted(out)


def test_no_test_module_imports_another() -> None:
    """A helper that test modules share lives under ``tests/fixtures/`` (issue 26): a test module
    is only collected, never imported by another test module, a fixture, a child script or a
    benchmark (``bench/`` takes what it shares with the tests from the fixtures too)."""
    files = sorted(TESTS.rglob("*.py")) + sorted((TESTS.parent / "bench").glob("*.py"))
    assert TESTS / "test_drills.py" in files and TESTS / "fixtures" / "drills.py" in files
    assert TESTS.parent / "bench" / "bench_scoring.py" in files
    wrong = [
        f"{path.relative_to(TESTS.parent)}:{line} imports {module}"
        for path in files
        for line, module in _test_module_imports(path.read_text(encoding="utf-8"))
    ]
    assert not wrong, "\n".join(wrong)


def test_the_reader_finds_imports_of_test_modules_in_code_and_in_scripts() -> None:
    t = "tests.test"  # spelled apart, so that a grep for such imports does not find this test
    source = f'import {t}_a\nfrom tests import {t[6:]}_b, services\nS = """\nimport os\nfrom {t}_c import f\n"""\n'
    assert _test_module_imports(source) == [(1, f"{t}_a"), (2, f"{t}_b"), (5, f"{t}_c")]
    assert _test_module_imports("from tests.fixtures.drills import SEAT\nJS = 'import x from \"./y.js\"'\n") == []
