"""The package's layering, read from its sources (by AST, nothing imported): each
unit (a subpackage, or a module at the top of ``zebrapack``) imports only units of
lower layers, no module takes part in an import circle, and no private name (``_x``)
of one unit is used by another. The layers, bottom up, are those of docs/design.md."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import zebrapack

SOURCE = Path(zebrapack.__file__).resolve().parent

#: Bottom up. A unit may import its own modules and those of units in lower layers.
LAYERS: list[set[str]] = [
    {"_errors", "_version", "_core", "values"},          # no schema: errors, the compiled core, Go values
    {"recordio"},                                        # record bytes in and out, a schema only as a protocol
    {"schema"},                                          # the model, its document, classes, Schema and load
    {"evolution", "gotypes"},                            # compatibility; the Go width aliases
    {"sources", "streams"},                              # schemas from Go and dataclasses; indexes, self-describing streams
    {"golang", "textformats", "codegen", "arrow", "examples"},
    {"cli", "dask", "spark"},
    {"__init__", "__main__"},                            # the facade and `python -m zebrapack`
]
LAYER_OF = {unit: level for level, units in enumerate(LAYERS) for unit in units}
#: Modules of the whole package, private to its users but shared by all its units.
SHARED_PRIVATE = {"_errors", "_version", "_core"}


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(module: str) -> str:
    """``zebrapack.schema.model`` -> ``schema``; ``zebrapack`` (the facade) -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports(path: Path) -> Iterator[tuple[str, list[str], int]]:
    """(imported module, names taken from it, line) for each zebrapack import of a file,
    those inside functions and under ``if TYPE_CHECKING:`` included (a type named is a
    dependency too)."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "zebrapack" or target.startswith("zebrapack."):
                # `from . import gotypes` imports a module: name it as such
                for alias in node.names:
                    place = SOURCE.parent.joinpath(*f"{target}.{alias.name}".split("."))
                    if place.with_suffix(".py").exists() or place.is_dir():
                        yield f"{target}.{alias.name}", [], node.lineno
                    else:
                        yield target, [alias.name], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "zebrapack" or alias.name.startswith("zebrapack."):
                    yield alias.name, [], node.lineno


SOURCES = sorted(SOURCE.rglob("*.py"))
GRAPH = {module_name(path): {target for target, _, _ in imports(path)} for path in SOURCES}


def test_every_unit_has_a_layer() -> None:
    units = {unit_of(module) for module in GRAPH} | {"_core"}
    assert units == set(LAYER_OF), "add the new unit to LAYERS (and docs/design.md)"


def test_lower_layers_never_import_higher_ones() -> None:
    wrong = []
    for path in SOURCES:
        module = module_name(path)
        for target, _, line in imports(path):
            here, there = unit_of(module), unit_of(target)
            if here != there and LAYER_OF[there] >= LAYER_OF[here]:
                wrong.append(f"{path.relative_to(SOURCE)}:{line}: {module} (layer {LAYER_OF[here]}) "
                             f"imports {target} (layer {LAYER_OF[there]})")
    assert not wrong, "\n".join(dict.fromkeys(wrong))


def test_no_import_circles() -> None:
    # Importing a package runs its __init__ module; a module's own package is not a circle.
    def edges(module: str) -> set[str]:
        return {target for target in GRAPH[module] if target in GRAPH and not module.startswith(target + ".")}

    circles, done, stack = [], set(), []

    def visit(module: str) -> None:
        if module in stack:
            circles.append(" -> ".join([*stack[stack.index(module):], module]))
            return
        if module in done:
            return
        stack.append(module)
        for target in sorted(edges(module)):
            visit(target)
        stack.pop()
        done.add(module)

    for module in sorted(GRAPH):
        visit(module)
    assert not circles, "\n".join(circles)


def test_no_private_name_crosses_units() -> None:
    wrong = []
    for path in SOURCES:
        module = module_name(path)
        for target, names, line in imports(path):
            if unit_of(target) == unit_of(module) or unit_of(target) in SHARED_PRIVATE:
                continue
            private = [part for part in target.split(".")[1:] if part.startswith("_") and not part.startswith("__")]
            private += [name for name in names if name.startswith("_") and not name.startswith("__")]
            if private:
                wrong.append(f"{path.relative_to(SOURCE)}:{line}: {module} uses {target} {names}")
    assert not wrong, "\n".join(dict.fromkeys(wrong))


def test_the_walk_resolves_relative_imports() -> None:
    # What the checks above read: relative imports named in full, a module imported as such.
    found = {target: names for target, names, _ in imports(SOURCE / "schema" / "loader.py")}
    assert found["zebrapack.schema.model"] and found["zebrapack.recordio.records"]
    assert "zebrapack.gotypes" in {target for target, _, _ in imports(SOURCE / "__init__.py")}
