"""Every progress stage the engine emits is one the server knows (packages/contracts/src/engine-stages.json):
the server shows a run as RUNNING in the stages listed under "running" (by prefix) and PROCESSING in the others,
so a stage renamed here without the contract would silently show the wrong status."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import polyforge_engine
from polyforge_engine.simulate.md import _stage_label

STAGES = json.loads((Path(__file__).parents[2] / "packages" / "contracts" / "src" / "engine-stages.json").read_text())
PACKAGE = Path(polyforge_engine.__file__).parent


def _literal_stages() -> dict[str, str]:
    """Each string literal given as the first argument of a call named `progress`, with where it stands."""
    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            first = node.args[0]
            if name == "progress" and isinstance(first, ast.Constant) and isinstance(first.value, str):
                found[first.value] = f"{path.relative_to(PACKAGE)}:{node.lineno}"
    return found


def _known(stage: str) -> bool:
    return stage in STAGES["processing"] or any(stage.startswith(prefix) for prefix in STAGES["running"])


def test_the_engine_emits_stages() -> None:
    # The scan itself must find the stages of building, simulating and bundling.
    stages = _literal_stages()
    assert {"packing", "minimisation", "dynamics", "bundling"} <= set(stages)


def test_every_literal_stage_is_in_the_contract() -> None:
    unknown = {stage: where for stage, where in _literal_stages().items() if not _known(stage)}
    assert unknown == {}, f"stages missing from packages/contracts/src/engine-stages.json: {unknown}"


def test_dynamics_stage_labels_read_as_running() -> None:
    class _Stage:
        def describe(self) -> str:
            return "NPT 600 K, 1000 bar"

    for stages, number in (([_Stage()], 1), ([_Stage()] * 21, 3)):
        label = _stage_label(stages, number)  # type: ignore[arg-type]
        assert any(label.startswith(prefix) for prefix in STAGES["running"]), label
