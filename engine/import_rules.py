"""Rule E3 of the engine's imports (docs/architecture.md, "Rules"), as an import-linter contract type
that `make lint` runs with the layer contracts of pyproject.toml:

- the package's own modules are imported at the top of a module, never inside a function or under
  `if TYPE_CHECKING:`: there such an import hides a circle that the layer contracts would refuse;
- no `_private` name is imported from another module of the package, and a private module (such as a
  compiled extension, construct/_growth) only from within its own package.

Modules the package imports from elsewhere (RDKit, OpenMM) are not looked at: importing one lazily
inside a function is how a command keeps its start-up short."""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from grimp import ImportGraph
from importlinter.application import output
from importlinter.domain.contract import Contract, ContractCheck


@dataclass(frozen=True)
class Breach:
    module: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: {self.what}"


class LocalImportsContract(Contract):
    type_name = "local_imports"

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        breaches: list[Breach] = []
        for root in self.session_options["root_packages"]:
            directory = package_directory(root)
            for module in sorted(graph.find_descendants(root) | {root}):
                breaches += module_breaches(module, source_of(directory, root, module), directory, root)
        return ContractCheck(kept=not breaches, metadata={"breaches": [str(breach) for breach in breaches]})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for breach in check.metadata["breaches"]:
            output.print_error(breach, bold=False)
            output.new_line()


def package_directory(root: str) -> Path:
    spec = importlib.util.find_spec(root)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"{root} is not an importable package")
    return Path(next(iter(spec.submodule_search_locations)))


def source_of(directory: Path, root: str, module: str) -> Path:
    parts = module.split(".")[1:] if module != root else []
    as_package = directory.joinpath(*parts, "__init__.py")
    return as_package if as_package.is_file() else directory.joinpath(*parts).with_suffix(".py")


def module_breaches(module: str, path: Path, directory: Path, root: str) -> list[Breach]:
    """The E3 breaches of one module's source."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    breaches = []
    for node, nested in _imports(tree, False):
        for imported, names in _imported(node, package):
            if imported != root and not imported.startswith(root + "."):
                continue
            if nested:
                breaches.append(Breach(module, node.lineno, f"imports {imported} inside a function or TYPE_CHECKING block"))
            private = [name for name in names if _is_private(name) and not _is_module(directory, root, f"{imported}.{name}")]
            if private:
                breaches.append(Breach(module, node.lineno, f"imports the private name(s) {', '.join(private)} from {imported}"))
            modules = [imported, *(f"{imported}.{name}" for name in names if _is_module(directory, root, f"{imported}.{name}"))]
            for outside in sorted({owner for name in modules if (owner := _private_owner(name)) and not _within(module, owner)}):
                breaches.append(Breach(module, node.lineno, f"imports a private module of {outside} from outside it"))
    return breaches


def _private_owner(module: str) -> str | None:
    """The package that owns the first private module on `module`'s path (None: no private part)."""
    parts = module.split(".")
    private = next((index for index, part in enumerate(parts) if _is_private(part)), None)
    return ".".join(parts[:private]) if private else None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _imports(node: ast.AST, nested: bool) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement under `node`, and whether it stands in a function or a TYPE_CHECKING block."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            found.append((child, nested))
            continue
        inner = nested or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) or _is_type_checking(child)
        found += _imports(child, inner)
    return found


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_type_checking(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(node: ast.Import | ast.ImportFrom, package: str) -> list[tuple[str, list[str]]]:
    """(module, names taken from it) of an import statement, relative imports resolved."""
    if isinstance(node, ast.Import):
        return [(alias.name, []) for alias in node.names]
    base = package.split(".")
    if node.level:
        base = base[: len(base) - node.level + 1]
        module = ".".join([*base, *([node.module] if node.module else [])])
    else:
        module = node.module or ""
    return [(module, [alias.name for alias in node.names])]


def _is_module(directory: Path, root: str, name: str) -> bool:
    """Whether `name` is a module of the package (a .py file, a package, or a compiled extension)."""
    parts = name.split(".")[1:]
    if not parts or name.split(".")[0] != root:
        return False
    place = directory.joinpath(*parts)
    return place.with_suffix(".py").is_file() or place.is_dir() or any(place.parent.glob(f"{place.name}.*.so")) or place.with_suffix(".pyi").is_file()
